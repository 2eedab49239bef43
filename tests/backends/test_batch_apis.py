"""The batch APIs (issue 35 items 5-6): the loopback double answers OpenAI's Batch API and
Anthropic's Message Batches as their documentation gives them, the official SDKs' batch clients
work against it unchanged, and mathprobe's batch clients send exactly the body a direct call
sends and read each result exactly as a direct call reads its reply (reasoning, `truncated`
and all)."""
from __future__ import annotations

import asyncio
import json

import anthropic
import httpx
import openai
import pytest

from mathprobe.backends import get_backend, get_batches
from mathprobe.backends.batches import Limits, chunked, custom_id
from mathprobe.items import Request
from tests.support.fake_api import FakeAPI


@pytest.fixture
def api(monkeypatch):
    server = FakeAPI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batches")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-batches")
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")
    yield server
    server.stop()


def openai_line(n: int, model: str = "gpt-4o-mini") -> dict:
    return {"custom_id": f"req-{n}", "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": model, "max_tokens": 64,
                     "messages": [{"role": "user", "content": f"question number {n}"}]}}


def jsonl(lines: list[dict]) -> bytes:
    return b"".join(json.dumps(x).encode() + b"\n" for x in lines)


async def until(get, done, tries: int = 20):
    """The object `get()` gives once `done(obj)` holds (the double moves on at each look)."""
    for _ in range(tries):
        obj = await get()
        if done(obj):
            return obj
    raise AssertionError(f"never reached: last {obj}")


def test_openai_sdk_runs_a_batch_with_partial_failures_and_results_in_any_order(api):
    api.faults = {"question number 3": ["400"], "question number 5": ["500"]}
    api.batch_expire = {"question number 7": 1}

    async def go():
        client = openai.AsyncOpenAI(base_url=api.openai_url, api_key="k", max_retries=0)
        upload = await client.files.create(file=("in.jsonl", jsonl([openai_line(n) for n in
                                                                  range(12)])), purpose="batch")
        assert (upload.purpose, upload.bytes) == ("batch", len(jsonl([openai_line(n) for n
                                                                       in range(12)])))
        batch = await client.batches.create(input_file_id=upload.id,
                                            endpoint="/v1/chat/completions",
                                            completion_window="24h", metadata={"who": "test"})
        assert batch.status == "validating" and batch.metadata == {"who": "test"}
        seen = [batch.status]
        batch = await until(lambda: client.batches.retrieve(batch.id),
                            lambda b: seen.append(b.status) or b.status in ("completed",
                                                                            "expired"))
        assert seen[:3] == ["validating", "in_progress", "finalizing"]
        assert batch.status == "expired"          # a request ran out of the window
        assert (batch.request_counts.total, batch.request_counts.completed,
                batch.request_counts.failed) == (12, 9, 3)
        out = (await client.files.content(batch.output_file_id)).content.splitlines()
        err = (await client.files.content(batch.error_file_id)).content.splitlines()
        await client.close()
        return [json.loads(x) for x in out], [json.loads(x) for x in err]

    out, err = asyncio.run(go())
    ids = [x["custom_id"] for x in out]
    assert sorted(ids) == sorted(f"req-{n}" for n in range(12) if n not in (3, 5, 7))
    assert ids != sorted(ids, key=lambda c: int(c.split("-")[1]))        # any order
    assert all(x["response"]["status_code"] == 200 and x["error"] is None for x in out)
    assert out[0]["response"]["body"]["object"] == "chat.completion"
    errors = {x["custom_id"]: x for x in err}
    assert errors["req-3"]["response"]["status_code"] == 400
    assert errors["req-3"]["response"]["body"]["error"]["type"] == "invalid_request_error"
    assert errors["req-5"]["response"]["status_code"] == 500
    assert errors["req-7"]["response"] is None
    assert errors["req-7"]["error"]["code"] == "batch_expired"


def test_openai_double_refuses_what_the_service_refuses(api):
    async def go():
        client = openai.AsyncOpenAI(base_url=api.openai_url, api_key="k", max_retries=0)
        lines = [openai_line(1), openai_line(2), {**openai_line(3), "custom_id": "req-1"},
                 {**openai_line(4), "url": "/v1/completions"}]
        upload = await client.files.create(file=("in.jsonl", jsonl(lines)), purpose="batch")
        with pytest.raises(openai.BadRequestError) as window:
            await client.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions",
                                        completion_window="1h")
        with pytest.raises(openai.NotFoundError):
            await client.batches.create(input_file_id="file-nope",
                                        endpoint="/v1/chat/completions", completion_window="24h")
        batch = await client.batches.create(input_file_id=upload.id,
                                            endpoint="/v1/chat/completions",
                                            completion_window="24h")
        batch = await client.batches.retrieve(batch.id)
        await client.close()
        return window.value, batch

    window, batch = asyncio.run(go())
    assert window.body["param"] == "completion_window"
    assert batch.status == "failed" and batch.output_file_id is None
    assert [(e.code, e.line) for e in batch.errors.data] == [("duplicate_custom_id", 3),
                                                             ("mismatched_endpoint", 4)]
    assert api.batch_submissions == []                  # nothing of it was run


def test_anthropic_sdk_runs_a_batch_held_then_ended_with_every_result_type(api):
    api.batch_hold = True
    api.faults = {"question number 1": ["400"], "question number 2": ["503"]}
    api.batch_expire = {"question number 3": 1}

    async def go():
        client = anthropic.AsyncAnthropic(base_url=api.anthropic_url, api_key="k", max_retries=0)
        batch = await client.messages.batches.create(requests=[
            {"custom_id": f"req-{n}", "params": {
                "model": "claude-haiku-4-5", "max_tokens": 64,
                "messages": [{"role": "user", "content": f"question number {n}"}]}}
            for n in range(8)])
        assert batch.processing_status == "in_progress"
        assert batch.request_counts.processing == 8 and batch.results_url is None
        held = await client.messages.batches.retrieve(batch.id)
        assert held.processing_status == "in_progress"
        with pytest.raises(anthropic.AnthropicError, match="results_url"):
            await client.messages.batches.results(batch.id)      # not ended: no results_url
        early = httpx.get(f"{api.anthropic_url}/v1/messages/batches/{batch.id}/results")
        assert early.status_code == 400 and early.json()["type"] == "error"
        api.batch_hold = False
        ended = await client.messages.batches.retrieve(batch.id)
        results = [r async for r in await client.messages.batches.results(batch.id)]
        listed = await client.messages.batches.list(limit=10)
        await client.close()
        return ended, results, listed

    ended, results, listed = asyncio.run(go())
    assert ended.processing_status == "ended" and ended.ended_at is not None
    assert ended.results_url.endswith(f"/v1/messages/batches/{ended.id}/results")
    c = ended.request_counts
    assert (c.processing, c.succeeded, c.errored, c.canceled, c.expired) == (0, 5, 2, 0, 1)
    by_id = {r.custom_id: r.result for r in results}
    assert sorted(by_id) == [f"req-{n}" for n in range(8)]
    assert [r.custom_id for r in results] != sorted(by_id)               # any order
    assert by_id["req-0"].type == "succeeded" and by_id["req-0"].message.content[0].text
    assert by_id["req-1"].type == "errored"
    assert by_id["req-1"].error.error.type == "invalid_request_error"
    assert by_id["req-2"].error.error.type == "overloaded_error"
    assert by_id["req-3"].type == "expired"
    assert [b.id for b in listed.data] == [ended.id]


def test_anthropic_double_refuses_custom_ids_the_service_refuses(api):
    async def go(custom_ids):
        client = anthropic.AsyncAnthropic(base_url=api.anthropic_url, api_key="k", max_retries=0)
        try:
            return await client.messages.batches.create(requests=[
                {"custom_id": c, "params": {"model": "m", "max_tokens": 8,
                                            "messages": [{"role": "user", "content": "x"}]}}
                for c in custom_ids])
        finally:
            await client.close()

    for ids, said in ((["2steps_17/2steps_multi"], "should match pattern"),
                      (["a", "a"], "Duplicate custom_id")):
        with pytest.raises(anthropic.BadRequestError, match=said):
            asyncio.run(go(ids))
    assert api.batch_submissions == []


def test_a_cancelled_batch_ends_cancelled(api):
    api.batch_hold = True

    async def go():
        o = openai.AsyncOpenAI(base_url=api.openai_url, api_key="k", max_retries=0)
        upload = await o.files.create(file=("in.jsonl", jsonl([openai_line(1)])), purpose="batch")
        batch = await o.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions",
                                       completion_window="24h")
        await o.batches.retrieve(batch.id)
        assert (await o.batches.cancel(batch.id)).status == "cancelling"
        done = await until(lambda: o.batches.retrieve(batch.id), lambda b: b.status == "cancelled")
        a = anthropic.AsyncAnthropic(base_url=api.anthropic_url, api_key="k", max_retries=0)
        mb = await a.messages.batches.create(requests=[{"custom_id": "x", "params": {
            "model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "x"}]}}])
        assert (await a.messages.batches.cancel(mb.id)).processing_status == "canceling"
        ended = await a.messages.batches.retrieve(mb.id)
        results = [r async for r in await a.messages.batches.results(mb.id)]
        await o.close()
        await a.close()
        return done, ended, results

    done, ended, results = asyncio.run(go())
    assert done.request_counts.failed == 1 and done.error_file_id
    assert ended.processing_status == "ended" and ended.request_counts.canceled == 1
    assert results[0].result.type == "canceled"


# -- mathprobe's batch clients: the direct call's body, the direct call's reading ---------------

CASES = [   # spec, params as the run sends them, scripted reply
    ("openai:o4-mini", {"max_completion_tokens": 30, "reasoning_effort": "low"},
     "<think>" + " ".join(["step"] * 10) + "</think>The answer is B."),
    ("openai:o4-mini", {"max_completion_tokens": 12}, None),                # cut: truncated
    ("openai:gpt-4o-mini", {"temperature": 0.0, "max_tokens": 64}, None),
    ("openai:my-r1#reasoning", {"max_completion_tokens": 40},
     "<think>" + " ".join(["hmm"] * 8) + "</think>The answer is C."),
    ("anthropic:claude-opus-4-5", {"max_tokens": 2000, "thinking": {"type": "enabled",
                                                                  "budget_tokens": 1024}},
     "<think>" + " ".join(["weigh"] * 12) + "</think>The answer is D."),
    ("anthropic:claude-opus-4-5", {"max_tokens": 1030, "thinking": {"type": "enabled",
                                                                  "budget_tokens": 1024}},
     "<think>" + " ".join(["weigh"] * 2000) + "</think>The answer is D."),  # cut in thinking
    ("anthropic:claude-haiku-4-5", {"temperature": 0.0, "max_tokens": 64}, None),
]


@pytest.mark.parametrize("spec, params, reply", CASES)
def test_a_batch_sends_the_direct_body_and_reads_the_direct_reply(api, spec, params, reply):
    if reply is not None:
        api.reply = lambda payload, prompt: reply
    api.reasoning_words = 40
    request = Request("2steps_1/2steps_multi", spec.split(":")[1], "What is 2 + 2?",
                      params=params, image=b"\x89PNG\r\n\x1a\nfake", system="Be brief.",
                      turns=(("user", "An example?"), ("assistant", "An answer.")))
    cid = custom_id(request.item_id, request.request_hash)

    async def go():
        backend = get_backend(spec)
        direct = await backend.complete(request)
        await backend.aclose()
        client = get_batches(spec)
        entry, _ = client.entry(cid, request)
        batch_id, _ = await client.submit([entry], "key-1")
        while not (await client.state(batch_id)).ended:
            pass
        outcomes = [o async for o in client.outcomes(batch_id)]
        via_batch = client.read(outcomes[0].reply, params)
        await client.aclose()
        return direct, via_batch, outcomes

    direct, via_batch, outcomes = asyncio.run(go())
    sent = [r["body"] for r in api.requests if r["path"].endswith(("/chat/completions",
                                                                   "/messages"))]
    assert len(sent) == 1 and api.batch_lines[0]["body"] == sent[0]      # the very same body
    assert api.batch_lines[0]["custom_id"] == cid
    assert [o.custom_id for o in outcomes] == [cid]
    for field in ("text", "status", "error", "reasoning", "input_tokens", "output_tokens",
                  "reasoning_tokens", "served_model"):
        assert getattr(via_batch, field) == getattr(direct, field), field
    if spec == "openai:o4-mini" and "reasoning_effort" not in params or "1030" in str(params):
        assert via_batch.status == "truncated"


def test_custom_ids_fit_anthropic_and_leave_room_for_a_sample_index():
    cid = custom_id("2steps_17/2steps_multi", "a" * 64)
    assert len(cid) <= 64 - len("-s999")
    assert cid == custom_id("2steps_17/2steps_multi", "a" * 64)
    assert cid != custom_id("2steps_17/2steps_1", "a" * 64)          # one prompt, two items
    import re
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", cid + "-s999")


def test_requests_are_cut_under_both_limits():
    sizes = [("a", 40), ("b", 40), ("c", 40), ("d", 200), ("e", 10)]
    assert list(chunked(sizes, Limits(requests=2, bytes=1000))) == [["a", "b"], ["c", "d"], ["e"]]
    assert list(chunked(sizes, Limits(requests=10, bytes=100))) == [["a", "b"], ["c"], ["d"],
                                                                    ["e"]]
