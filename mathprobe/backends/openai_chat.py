"""`openai:<model>`: the official SDK's async chat completions, for OpenAI and any server that
speaks its wire format (vLLM, SGLang, gateways) via OPENAI_BASE_URL. Images go as data URLs; a
chat's prior turns go as messages. The text completions API serves what needs a raw text
continued (`continue_text`) or scored (`score`).

Requests go over the SDK's aiohttp transport (`openai.DefaultAioHttpClient`, the SDK's own
option), not its default httpx2 pool: with 128 requests in flight the pool re-checks every
connection for each request, and the same requests ran 1.5-2x faster on aiohttp here
(perf/fanout.py prints both). Proxies from the environment are honoured by this
transport too, so a run behind a proxy needs nothing more."""
from __future__ import annotations

import base64
import os

from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.backends.retry import (
    RetryPolicy,
    call_with_retries,
    check_not_empty,
    classify_sdk_error,
    retried,
    sdk_kwargs,
)
from mathprobe.backends.secrets import resolve_secret
from mathprobe.items import Completion, Request


def image_mime(data: bytes) -> str:
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"


class OpenAIChat:
    kind = "openai"

    def __init__(self, model: str, *, policy: RetryPolicy | None = None,
                 base_url: str | None = None, api_key: str | None = None):
        import openai  # here, not above: the registry imports this module to read BACKEND

        self.model = model
        self.policy = policy or RetryPolicy()
        self.client = openai.AsyncOpenAI(
            api_key=api_key or resolve_secret("OPENAI_API_KEY"),
            base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
            max_retries=0,                      # tenacity retries, with our policy
            timeout=self.policy.timeout_s,
            http_client=openai.DefaultAioHttpClient(timeout=self.policy.timeout_s))

    def _messages(self, request: Request) -> list[dict]:
        content: list[dict] = []
        if request.image is not None:
            b64 = base64.b64encode(request.image).decode()
            content.append({"type": "image_url",
                            "image_url": {"url": f"data:{image_mime(request.image)};base64,{b64}"}})
        content.append({"type": "text", "text": request.prompt})
        system = [{"role": "system", "content": request.system}] if request.system else []
        prior = [{"role": role, "content": text} for role, text in request.turns]
        return system + prior + [{"role": "user", "content": content}]

    async def complete(self, request: Request) -> Completion:
        messages = self._messages(request)
        params = sdk_kwargs(self.client.chat.completions.create, request.params)

        async def attempt() -> Completion:
            try:
                resp = await self.client.chat.completions.create(
                    model=self.model, messages=messages, **params)
                choice = resp.choices[0]
                text = choice.message.content
                refusal = getattr(choice.message, "refusal", None)
                usage = resp.usage
                status = "refused" if refusal or choice.finish_reason == "content_filter" else "ok"
                if status == "ok":
                    check_not_empty(text, choice.finish_reason, ("length",))
                return Completion(text=text if text is not None else refusal, status=status,
                                  input_tokens=usage.prompt_tokens if usage else None,
                                  output_tokens=usage.completion_tokens if usage else None,
                                  served_model=getattr(resp, "model", None) or None)
            except Exception as exc:   # every SDK failure becomes Transient or Permanent
                raise _sdk_error(exc) from exc

        return await call_with_retries(attempt, self.policy)

    async def continue_text(self, request: Request) -> Completion:
        """The text completions API (`/v1/completions`, which vLLM and other OpenAI-compatible
        servers serve): the model continues `request.prompt` exactly as given, with no chat
        template and no instruction (the contamination probes' protocol)."""
        params = sdk_kwargs(self.client.completions.create, request.params)

        async def attempt() -> Completion:
            try:
                resp = await self.client.completions.create(
                    model=self.model, prompt=request.prompt, **params)
                text = resp.choices[0].text
                if text is None:
                    raise ValueError("the response has no text")
                usage = resp.usage
                return Completion(text=text,
                                  input_tokens=usage.prompt_tokens if usage else None,
                                  output_tokens=usage.completion_tokens if usage else None)
            except Exception as exc:
                raise _sdk_error(exc) from exc

        return await call_with_retries(attempt, self.policy)

    async def score(self, text: str, prefix: str = "") -> list[tuple[str, int | None, float]]:
        """Prompt log-probabilities of `text` after `prefix`, from an OpenAI-compatible server
        that returns them (vLLM and others: the completions API with echo and logprobs)."""
        async def fetch() -> list[tuple[str, int | None, float]]:
            try:
                resp = await self.client.completions.create(
                    model=self.model, prompt=prefix + text, max_tokens=1, echo=True, logprobs=0,
                    temperature=0.0)
                lp = resp.choices[0].logprobs
                start, end = len(prefix), len(prefix) + len(text)
                out = [(tok, None, float(p)) for tok, p, off in
                       zip(lp.tokens, lp.token_logprobs, lp.text_offset)
                       if start <= off < end and p is not None]
                if not out:
                    raise ValueError("the server returned no prompt log-probabilities")
                return out
            except Exception as exc:
                raise _sdk_error(exc) from exc

        return await retried(fetch, self.policy)

    async def aclose(self) -> None:
        await self.client.close()


def _sdk_error(exc: Exception) -> Exception:
    import openai

    return classify_sdk_error(openai, exc)


def make(model: str, settings: Settings) -> OpenAIChat:
    return OpenAIChat(model, policy=settings.policy)


BACKEND = BackendKind(name="openai", usage="openai:MODEL",
                      help="OpenAI, or a server speaking its API",
                      factory=make, key_env="OPENAI_API_KEY", endpoint_env="OPENAI_BASE_URL",
                      slow_import="openai", concurrency=256, network=True, priced=True, rank=1)
