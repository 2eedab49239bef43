"""`anthropic:<model>`: the official SDK's async Messages API (ANTHROPIC_BASE_URL honoured).
Images go as base64 image blocks before the text.

Extended thinking (--thinking-budget N, docs/reasoning-models.md) is sent as
`thinking={"type": "enabled", "budget_tokens": N}`, with its rules checked before the run: N at
least 1024, max_tokens above N, no temperature but 1. The reply's `thinking` blocks are stored
apart from its `text` blocks (the answer); a reply that hit max_tokens inside its thinking, or
before any text, is `truncated`. The thinking's tokens are in `output_tokens` (priced as
output); how many of them were thinking is known only where the API reports
`usage.output_tokens_details.thinking_tokens`, else left unknown (NULL)."""
from __future__ import annotations

import base64
import os
from typing import Any

from mathprobe.backends import reasoning
from mathprobe.backends.openai_chat import image_mime
from mathprobe.backends.reasoning import Reply
from mathprobe.backends.registry import BackendKind, Generation, Option, Settings
from mathprobe.backends.retry import (
    RetryPolicy,
    call_with_retries,
    check_not_empty,
    classify_sdk_error,
    sdk_kwargs,
)
from mathprobe.backends.secrets import resolve_secret
from mathprobe.errors import MathprobeError
from mathprobe.items import Completion, Request

DEFAULT_MAX_TOKENS = 1024        # the Messages API requires a cap


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

    def body(self, request: Request) -> dict:
        """The JSON body of the message that answers `request`: what a direct call sends, and
        a batch request's `params` (mathprobe/backends/anthropic_batches.py), so the two never
        differ. Images go as base64 blocks before the text; the API requires a token cap."""
        content: list[dict] = []
        if request.image is not None:
            content.append({"type": "image", "source": {
                "type": "base64", "media_type": image_mime(request.image),
                "data": base64.b64encode(request.image).decode()}})
        content.append({"type": "text", "text": request.prompt})
        messages: list[dict[str, Any]] = [{"role": role, "content": text}
                                          for role, text in request.turns]
        messages.append({"role": "user", "content": content})
        body = {"model": self.model, "messages": messages,
                "max_tokens": DEFAULT_MAX_TOKENS, **request.params}
        if request.system:
            body["system"] = request.system
        return body

    async def complete(self, request: Request) -> Completion:
        create = self.client.messages.create
        kwargs = sdk_kwargs(create, self.body(request))   # unnamed ones travel in extra_body

        async def attempt() -> Completion:
            try:
                return self.reply(await create(**kwargs), request.params)
            except Exception as exc:
                import anthropic

                raise classify_sdk_error(anthropic, exc) from exc

        return await call_with_retries(attempt, self.policy)

    @staticmethod
    def reply(resp, params: dict) -> Completion:
        """A message (the SDK's object, from a direct call or a batch's results) to a request
        sent `params` as a Completion (`_read`)."""
        return _read(resp, "thinking" in params, params.get("max_tokens", DEFAULT_MAX_TOKENS))

    async def aclose(self) -> None:
        await self.client.close()


def _read(resp, thinking: bool, cap: int) -> Completion:
    """A message as a Completion: its text blocks are the answer, its thinking blocks the
    reasoning (a redacted one is marked, its text being encrypted)."""
    blocks = getattr(resp, "content", None) or []
    kinds = [getattr(b, "type", None) for b in blocks]
    text = "".join(b.text for b, k in zip(blocks, kinds) if k == "text")
    thought = [b.thinking if k == "thinking" else "[redacted thinking]"
               for b, k in zip(blocks, kinds) if k in ("thinking", "redacted_thinking")]
    reply = Reply(text, "\n\n".join(thought) if thought else None,
                  open=bool(kinds) and kinds[-1] in ("thinking", "redacted_thinking"))
    details = getattr(resp.usage, "output_tokens_details", None)
    status, error = "refused" if resp.stop_reason == "refusal" else "ok", None
    if status == "ok":
        if reasoning.cut_before_answer(reply, resp.stop_reason == "max_tokens", thinking):
            status = reasoning.TRUNCATED
            error = reasoning.truncation_error(
                "inside the thinking" if reply.open else "before the answer",
                resp.usage.output_tokens, cap)
        else:
            check_not_empty(text, resp.stop_reason, ("max_tokens",))
    return Completion(text=text, status=status, error=error,
                      input_tokens=resp.usage.input_tokens,
                      output_tokens=resp.usage.output_tokens, reasoning=reply.reasoning,
                      reasoning_tokens=getattr(details, "thinking_tokens", None),
                      served_model=getattr(resp, "model", None) or None)


def make(model: str, settings: Settings) -> AnthropicMessages:
    return AnthropicMessages(model, policy=settings.policy)


def make_batches(model: str, settings: Settings):
    """The Message Batches client (mathprobe/backends/anthropic_batches.py) around the model's
    backend."""
    from mathprobe.backends.anthropic_batches import AnthropicBatches

    return AnthropicBatches(make(model, settings))


MIN_BUDGET = 1024                 # Anthropic's least thinking budget
THINKING_BUDGET = Option(
    "thinking_budget", type=int,
    help="Turn on Anthropic's extended thinking with this many tokens to think in (at least "
         "1024; sent as thinking.budget_tokens). --max-tokens must be above it (the thinking "
         "counts in it; default: the budget plus the benchmark's answer cap).")


def generation(gen: Generation) -> dict:
    """What an anthropic: model is sent. With --thinking-budget N: `thinking` on with N, the
    cap above N (by default N plus the benchmark's cap for the answer) and no temperature (the
    API takes only 1 with thinking on); the rules are checked now, before anything is asked."""
    budget = gen.options.get("thinking_budget")
    if budget is None:
        if reasoning.marked(gen.spec):
            raise MathprobeError(f"--model {gen.spec!r}: turn its extended thinking on with "
                                 f"--thinking-budget N (N >= {MIN_BUDGET})")
        return gen.plain()
    if not gen.traits.thinking:
        raise MathprobeError(
            f"--thinking-budget {budget}: {gen.spec} takes no extended thinking (the table "
            f"lists {reasoning.declared('anthropic')}); if it does, name it "
            f"{gen.spec}{reasoning.MARK}")
    if budget < MIN_BUDGET:
        raise MathprobeError(f"--thinking-budget {budget}: must be at least {MIN_BUDGET} "
                             "(Anthropic's least thinking budget)")
    cap = gen.given.get("max_tokens")
    if cap is None:
        cap = budget + gen.defaults.get("max_tokens", DEFAULT_MAX_TOKENS)
    elif cap <= budget:
        raise MathprobeError(f"--max-tokens {cap}: must be above --thinking-budget {budget} "
                             "(the thinking counts in Anthropic's max_tokens)")
    temperature = gen.given.get("temperature")
    if temperature is not None and temperature != 1:
        raise MathprobeError(f"--temperature {temperature:g}: Anthropic's extended thinking "
                             "takes no temperature but 1; leave --temperature out")
    params = {k: v for k, v in gen.defaults.items() if k not in ("temperature", "max_tokens")}
    params.update(max_tokens=cap, thinking={"type": "enabled", "budget_tokens": budget})
    if temperature is not None:
        params["temperature"] = temperature
    return params


BACKEND = BackendKind(name="anthropic", usage="anthropic:MODEL",
                      help="Anthropic's Messages API",
                      factory=make, key_env="ANTHROPIC_API_KEY", extra="anthropic",
                      endpoint_env="ANTHROPIC_BASE_URL",
                      slow_import="mathprobe.backends.anthropic_first_client",
                      concurrency=64, network=True, priced=True, rank=2,
                      options=(THINKING_BUDGET,), generation=generation, reasoning=True,
                      batches=make_batches)
