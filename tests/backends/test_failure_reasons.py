"""A failed call is stored with what happened, named as an operator would say it: a refused
connection is 'connection refused' (OpenAI's aiohttp client reports it as a timeout), a server
that hangs up 'connection closed by the server', a slow one 'timed out waiting for the answer',
an error status 'HTTP 503'. Real SDKs over loopback (tests/support/fake_api.py), a port nobody
listens on, and Triton's real gRPC client."""
from __future__ import annotations

import asyncio

import pytest

from mathprobe.backends.anthropic_messages import AnthropicMessages
from mathprobe.backends.openai_chat import OpenAIChat
from mathprobe.backends.retry import RetryPolicy
from mathprobe.items import Request
from mathprobe.ports import free_port
from tests.support.fake_api import FakeAPI

ONCE = RetryPolicy(max_attempts=1, timeout_s=1.0)
BACKENDS = {"openai": lambda url: OpenAIChat("m", policy=ONCE, base_url=url, api_key="sk-x"),
            "anthropic": lambda url: AnthropicMessages("m", policy=ONCE, base_url=url,
                                                       api_key="sk-x")}


@pytest.fixture(scope="module")
def api():
    server = FakeAPI(slow_s=3.0).start()
    yield server
    server.stop()


def ask(backend, prompt: str):
    async def go():
        try:
            return await backend.complete(Request(item_id="x", model="m", prompt=prompt,
                                                  params={"max_tokens": 5}))
        finally:
            await backend.aclose()
    return asyncio.run(go())


@pytest.mark.parametrize("provider", list(BACKENDS))
@pytest.mark.parametrize("fault, reason", [
    ("slow", "timed out waiting for the answer: "),
    ("drop", "connection closed by the server before it answered: "),
    ("503", "HTTP 503: "),
    ("401", "HTTP 401: "),
])
def test_a_failure_is_named_by_what_happened(api, provider, fault, reason):
    api.always[f"prompt {fault}"] = fault
    url = api.openai_url if provider == "openai" else api.anthropic_url
    done = ask(BACKENDS[provider](url), f"prompt {fault}")
    assert done.status == "infra_failed" and done.error.startswith(reason), done.error
    assert "timeout" not in done.error.lower() or fault == "slow"


@pytest.mark.parametrize("provider", list(BACKENDS))
def test_a_refused_connection_is_not_a_timeout(provider):
    port = free_port()                                  # nobody listens there
    done = ask(BACKENDS[provider](f"http://127.0.0.1:{port}/v1" if provider == "openai"
                                  else f"http://127.0.0.1:{port}"), "hello")
    assert done.status == "infra_failed"
    assert done.error.startswith("connection refused: "), done.error
    assert str(port) in done.error and "timed out" not in done.error


def test_triton_names_a_refused_connection():
    pytest.importorskip("tritonclient.grpc")
    from mathprobe.backends.triton_grpc import TritonGenerate

    done = ask(TritonGenerate("m", url=f"127.0.0.1:{free_port()}", policy=ONCE), "hello")
    assert done.status == "infra_failed"
    assert done.error.startswith("connection refused: triton"), done.error
