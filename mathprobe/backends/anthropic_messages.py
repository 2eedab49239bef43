"""`anthropic:<model>`: the official SDK's async Messages API (ANTHROPIC_BASE_URL honoured).
Images go as base64 image blocks before the text."""
from __future__ import annotations

import base64
import os

from mathprobe.backends.openai_chat import image_mime
from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.backends.retry import (
    RetryPolicy,
    call_with_retries,
    check_not_empty,
    classify_sdk_error,
    sdk_kwargs,
)
from mathprobe.backends.secrets import resolve_secret
from mathprobe.items import Completion, Request


class AnthropicMessages:
    kind = "anthropic"

    def __init__(self, model: str, *, policy: RetryPolicy | None = None,
                 base_url: str | None = None, api_key: str | None = None):
        import anthropic  # here, not above: the registry imports this module to read BACKEND

        self.model = model
        self.policy = policy or RetryPolicy()
        self.client = anthropic.AsyncAnthropic(
            api_key=api_key or resolve_secret("ANTHROPIC_API_KEY"),
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            max_retries=0, timeout=self.policy.timeout_s,
            http_client=anthropic.DefaultAioHttpClient(timeout=self.policy.timeout_s))   # as openai_chat

    async def complete(self, request: Request) -> Completion:
        content: list[dict] = []
        if request.image is not None:
            content.append({"type": "image", "source": {
                "type": "base64", "media_type": image_mime(request.image),
                "data": base64.b64encode(request.image).decode()}})
        content.append({"type": "text", "text": request.prompt})
        params = sdk_kwargs(self.client.messages.create,
                            {"max_tokens": 1024, **request.params})  # max_tokens is required
        if request.system:
            params["system"] = request.system

        messages = [{"role": role, "content": text} for role, text in request.turns]
        messages.append({"role": "user", "content": content})

        async def attempt() -> Completion:
            try:
                resp = await self.client.messages.create(
                    model=self.model, messages=messages, **params)
                text = "".join(b.text for b in resp.content if getattr(b, "type", None) == "text")
                status = "refused" if resp.stop_reason == "refusal" else "ok"
                if status == "ok":
                    check_not_empty(text, resp.stop_reason, ("max_tokens",))
                return Completion(text=text, status=status,
                                  input_tokens=resp.usage.input_tokens,
                                  output_tokens=resp.usage.output_tokens,
                                  served_model=getattr(resp, "model", None) or None)
            except Exception as exc:
                import anthropic

                raise classify_sdk_error(anthropic, exc) from exc

        return await call_with_retries(attempt, self.policy)

    async def aclose(self) -> None:
        await self.client.close()


def make(model: str, settings: Settings) -> AnthropicMessages:
    return AnthropicMessages(model, policy=settings.policy)


BACKEND = BackendKind(name="anthropic", usage="anthropic:MODEL",
                      help="Anthropic's Messages API",
                      factory=make, key_env="ANTHROPIC_API_KEY",
                      endpoint_env="ANTHROPIC_BASE_URL", slow_import="anthropic",
                      concurrency=64, network=True, priced=True, rank=2)
