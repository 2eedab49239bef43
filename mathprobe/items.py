"""The objects that travel between adapters, backends and the store.

An `Item` is a benchmark row as loaded; a `Chat` is a prompt with prior conversation turns (e.g.
few-shot exemplars sent as user / assistant turns); a `Request` is exactly what a backend is asked
(its content hash is the cache and resume key); a `Completion` is what came back, failures included.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Item:
    benchmark: str
    item_id: str
    question: str
    gold: str
    group_id: str | None = None      # WE-MATH problem ID, ConceptMath system ...
    part: str | None = None          # WE-MATH key: 2steps_1 .. 3steps_multi
    concept: str | None = None
    choices: tuple[str, ...] = ()    # option letters of a multiple-choice question
    image_path: str | None = None    # absolute path of the image, if the item has one
    # few-shot exemplars (question, answer) for prompts that use them; not stored
    exemplars: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False, repr=False)
    payload: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


ROLES = ("user", "assistant")
Turn = tuple[str, str]               # (role, content), role in ROLES


@dataclass(frozen=True)
class Chat:
    """A prompt that is a conversation: prior `turns` (user, assistant, user, assistant, ...:
    pairs that open with a user turn and close with an assistant turn), then the final user turn
    `prompt`, which the model answers. What a benchmark's `prompt()` returns when a plain string
    is not enough (e.g. few-shot exemplars as chat turns)."""
    turns: tuple[Turn, ...]
    prompt: str

    def __post_init__(self):
        for n, turn in enumerate(self.turns):
            if (not isinstance(turn, tuple) or len(turn) != 2 or turn[0] != ROLES[n % 2]
                    or not isinstance(turn[1], str)):
                raise ValueError(f"turn {n + 1} of a chat must be ({ROLES[n % 2]!r}, text), "
                                 f"got {turn!r}")
        if len(self.turns) % 2:
            raise ValueError("a chat's prior turns must end with an assistant turn (the final "
                             "user turn is `prompt`)")


@dataclass(frozen=True)
class ChanceAnswer:
    """How a chance guess answers one item, in its benchmark's answer format (what
    `baseline:random` answers): one of `choices`, all equally likely, written into `template`
    where it says {answer} (e.g. 'Therefore, the answer is {answer}.')."""
    template: str
    choices: tuple[str, ...]

    def text(self, choice: str) -> str:
        return self.template.replace("{answer}", choice)


@dataclass(frozen=True)
class Request:
    item_id: str
    model: str
    prompt: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    image: bytes | None = field(default=None, repr=False)
    choices: tuple[str, ...] = ()
    system: str | None = None        # a system prompt (e.g. a judge's instructions)
    # prior conversation turns before the final user turn `prompt` (see `Chat`); () for a
    # single-turn prompt
    turns: tuple[Turn, ...] = ()
    # how the chance baseline answers it (the benchmark's `chance_answer`); not part of what a
    # model is asked, so not in the hash
    chance: ChanceAnswer | None = field(default=None, compare=False, repr=False)
    # which of the item's repeated samples it asks for (--samples K: 0 .. K-1); each is an
    # independent request (mathprobe/runs/samples.py), so from 1 on it is in the hash
    sample: int = 0

    @cached_property
    def request_hash(self) -> str:
        """Content hash of everything that determines the answer: model, params, prompt, image,
        and the system prompt, prior turns and sample index where there are any. A request
        without them hashes exactly as before they existed, so stores made earlier resume
        without asking again (and sample 0 is the request of a run of one sample)."""
        h = hashlib.sha256()
        content: dict[str, Any] = {"model": self.model, "params": self.params,
                                   "prompt": self.prompt}
        if self.system is not None:
            content["system"] = self.system
        if self.turns:
            content["turns"] = [list(t) for t in self.turns]
        if self.sample:
            content["sample"] = self.sample
        h.update(json.dumps(content, sort_keys=True, ensure_ascii=False).encode())
        if self.image is not None:
            h.update(b"\0image\0")
            h.update(self.image)
        return h.hexdigest()


@dataclass
class Completion:
    text: str | None
    # ok | infra_failed | refused | missing | judge_failed | truncated (cut at the token cap
    # before its answer: never graded, re-asked like a failed call)
    status: str = "ok"
    error: str | None = None
    attempts: int = 1
    latency_s: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    # (token, token_id, logprob) of each generated token, where the backend gives them
    token_logprobs: list[tuple[str | None, int | None, float]] | None = field(default=None, repr=False)
    logprob_kind: str = "generated"  # 'generated' tokens, or the 'prompt' scored (MIN-K%)
    served_model: str | None = None  # the model the server says answered (its `model` field)
    # a reasoning model's reasoning, apart from `text` (the answer, which is what is graded),
    # and the tokens it took where the API says (they are also in `output_tokens`)
    reasoning: str | None = field(default=None, repr=False)
    reasoning_tokens: int | None = None
    # which of the item's samples it answers (its request's `sample`), set by whoever asked;
    # stored in responses.sample
    sample: int = 0


def given(value: str | None, name: str) -> str:
    """An optional Item field that its benchmark always sets (WE-MATH's problem ID and key,
    ConceptMath's system and concept, ...), as the str it is there; a ValueError naming the
    field where it is not (a bug in the benchmark's loader, not bad data: loaders check rows)."""
    if value is None:
        raise ValueError(f"the item's {name} is not set")
    return value
