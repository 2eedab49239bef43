"""Prompts that are chats: what a request carries and hashes, and the one text a completion-style
backend gets for it. (The turns over real HTTP and through Triton: tests/benchmarks/conceptmath/
test_flow.py.)"""
from __future__ import annotations

import pytest

from mathprobe.backends.transcript import flatten
from mathprobe.items import Chat, Request

PARAMS = {"temperature": 0.0, "max_tokens": 1024}
TURNS = (("user", "What is 1 + 1?"), ("assistant", "1 + 1 = 2. Therefore, the answer is 2."))


def test_a_request_without_turns_hashes_as_before_turns_existed():
    """Stores made before chats existed resume without asking again: the digests below are what
    the earlier code gave for the same requests."""
    plain = Request(item_id="element_en/1", model="openai:gpt-4o-mini", prompt="What is 2 + 3?",
                    params=dict(PARAMS))
    assert plain.request_hash == "5455cda13e4e8851e53d50a71464c4f1ba591694d04acee56016e988de7991c7"
    judged = Request(item_id="x", model="judge", prompt="Is it right?", system="You judge.",
                     params={"temperature": 0.0}, image=b"\x89PNG")
    assert judged.request_hash == "6f748f7de6911547ae40b7e3bc9a0648827ce66843a12beb01cc8db34a49dc1e"


def test_the_turns_are_part_of_the_hash():
    base = Request(item_id="i", model="m", prompt="What is 2 + 3?", params=dict(PARAMS))
    chat = Request(item_id="i", model="m", prompt="What is 2 + 3?", params=dict(PARAMS),
                   turns=TURNS)
    other = Request(item_id="i", model="m", prompt="What is 2 + 3?", params=dict(PARAMS),
                    turns=(TURNS[0], ("assistant", "2")))
    assert len({base.request_hash, chat.request_hash, other.request_hash}) == 3
    assert chat.request_hash == Request(item_id="j", model="m", prompt="What is 2 + 3?",
                                        params=dict(PARAMS), turns=TURNS).request_hash


@pytest.mark.parametrize("turns", [
    (("assistant", "hi"), ("user", "hello")),            # must open with the user
    (("user", "a"),),                                    # must close with the assistant
    (("user", "a"), ("user", "b")),                      # roles alternate
    (("user", 1), ("assistant", "b")),                   # texts
])
def test_a_chat_is_user_assistant_pairs(turns):
    with pytest.raises(ValueError):
        Chat(turns=turns, prompt="q")


def test_flattened_for_a_one_text_backend():
    chat = Request(item_id="i", model="m", prompt="What is 2 + 3?", turns=TURNS)
    assert flatten(chat) == ("User: What is 1 + 1?\n\n"
                             "Assistant: 1 + 1 = 2. Therefore, the answer is 2.\n\n"
                             "User: What is 2 + 3?\n\nAssistant:")
    with_system = Request(item_id="i", model="m", prompt="q", system="Be brief.", turns=TURNS)
    assert flatten(with_system).startswith("Be brief.\n\nUser: What is 1 + 1?")
    # without turns, what it always was
    assert flatten(Request(item_id="i", model="m", prompt="q")) == "q"
    assert flatten(Request(item_id="i", model="m", prompt="q", system="s")) == "s\n\nq"
