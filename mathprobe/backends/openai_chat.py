"""`openai:<model>`: the official SDK's async chat completions, for OpenAI and any server that
speaks its wire format (vLLM, SGLang, gateways) via OPENAI_BASE_URL. Images go as data URLs; a
chat's prior turns go as messages. The text completions API serves what needs a raw text
continued (`continue_text`) or scored (`score`).

Reasoning models (mathprobe/backends/reasoning.py, docs/reasoning-models.md): OpenAI's o-series
and gpt-5 family are sent `max_completion_tokens` for the cap, no temperature, and
`reasoning_effort` (--reasoning-effort); their reasoning tokens are read from
`usage.completion_tokens_details`. An open reasoning model's reasoning is read from
`message.reasoning_content` (vLLM, SGLang with a reasoning parser) or a leading `<think>` block,
and stored apart from the answer; a reply cut at the cap before its answer is `truncated`.

Requests go over the SDK's aiohttp transport (`openai.DefaultAioHttpClient`, the SDK's own
option), not its default httpx2 pool: with 128 requests in flight the pool re-checks every
connection for each request, and the same requests ran 1.5-2x faster on aiohttp here
(perf/fanout.py prints both). Proxies from the environment are honoured by this
transport too, so a run behind a proxy needs nothing more."""
from __future__ import annotations

import base64
import os

from mathprobe.backends import reasoning
from mathprobe.backends.reasoning import Traits
from mathprobe.backends.registry import BackendKind, Generation, Option, Settings
from mathprobe.backends.retry import (
    RetryPolicy,
    call_with_retries,
    check_not_empty,
    classify_sdk_error,
    retried,
    sdk_kwargs,
)
from mathprobe.backends.secrets import resolve_secret
from mathprobe.errors import MathprobeError
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
                 base_url: str | None = None, api_key: str | None = None,
                 traits: Traits = reasoning.PLAIN):
        import openai  # here, not above: the registry imports this module to read BACKEND

        self.model = model
        self.traits = traits
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

    def body(self, request: Request) -> dict:
        """The JSON body of the chat completion that answers `request`, the model's rules
        applied (mathprobe.backends.reasoning): what a direct call sends, and what a batch line
        carries (mathprobe/backends/openai_batches.py), so the two never differ."""
        return {"model": self.model, "messages": self._messages(request),
                **self.traits.adapt(request.params)}

    async def complete(self, request: Request) -> Completion:
        create = self.client.chat.completions.create
        kwargs = sdk_kwargs(create, self.body(request))   # unnamed ones travel in extra_body

        async def attempt() -> Completion:
            try:
                return self.reply(await create(**kwargs), request.params)
            except Exception as exc:   # every SDK failure becomes Transient or Permanent
                raise _sdk_error(exc) from exc

        return await call_with_retries(attempt, self.policy)

    def reply(self, resp, params: dict) -> Completion:
        """A chat completion (the SDK's object, from a direct call or built from a batch's
        output line) to a request sent `params` as a Completion: the answer apart from the
        reasoning, `refused`, `truncated` (cut at the cap before its answer), or an answer to
        grade. Raises EmptyCompletion for an empty answer that is the server's fault."""
        cap = self.traits.adapt(params).get(self.traits.max_tokens)
        choice = resp.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        extra = getattr(message, "model_extra", None) or {}
        apart = extra.get("reasoning_content") or extra.get("reasoning")   # vLLM, SGLang
        parts = reasoning.split(message.content, apart if isinstance(apart, str) else None)
        usage = resp.usage
        details = getattr(usage, "completion_tokens_details", None) if usage else None
        thought = getattr(details, "reasoning_tokens", None) if details else None
        out = usage.completion_tokens if usage else None
        refused = bool(refusal) or choice.finish_reason == "content_filter"
        status, error = "refused" if refused else "ok", None
        if not refused:
            if reasoning.cut_before_answer(parts, choice.finish_reason == "length",
                                           self.traits.reasoning):
                status = reasoning.TRUNCATED
                hidden = parts.reasoning is None and bool(thought)    # OpenAI's keep it hidden
                error = reasoning.truncation_error(
                    "inside the reasoning" if parts.open or hidden else "before the answer",
                    out, cap)
            else:
                check_not_empty(parts.answer, choice.finish_reason, ("length",))
        # a plain model's 0 reasoning tokens say nothing: kept for a model that reasons
        reasons = bool(thought) or parts.reasoning is not None or self.traits.reasoning
        text = parts.answer if parts.answer is not None or status == "truncated" else refusal
        return Completion(text=text, status=status, error=error,
                          input_tokens=usage.prompt_tokens if usage else None,
                          output_tokens=out, reasoning=parts.reasoning,
                          reasoning_tokens=thought if reasons else None,
                          served_model=getattr(resp, "model", None) or None)

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
                if (lp is None or lp.tokens is None or lp.token_logprobs is None
                        or lp.text_offset is None):
                    raise ValueError("the server returned no prompt log-probabilities")
                start, end = len(prefix), len(prefix) + len(text)
                out: list[tuple[str, int | None, float]] = [(tok, None, float(p)) for tok, p, off in
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
    return OpenAIChat(model, policy=settings.policy, traits=settings.traits)


def make_batches(model: str, settings: Settings):
    """The Batch API client (mathprobe/backends/openai_batches.py) around the model's backend."""
    from mathprobe.backends.openai_batches import OpenAIBatches

    return OpenAIBatches(make(model, settings))


REASONING_EFFORT = Option(
    "reasoning_effort", choices=reasoning.EFFORTS,
    help="How hard an OpenAI reasoning model thinks (o-series, gpt-5; sent as "
         "reasoning_effort): minimal (gpt-5 only), low, medium or high.")


def generation(gen: Generation) -> dict:
    """What an openai: model is sent. A reasoning model (the table, or NAME#reasoning) gets
    the token cap under its name (`max_completion_tokens`) and only what the user set: the
    benchmark's temperature and cap are the paper's choices for plain models, and a reasoning
    model's own defaults win over them; a temperature it does not take is refused here."""
    t, effort = gen.traits, gen.options.get("reasoning_effort")
    if not t.reasoning:
        if effort is not None:
            raise MathprobeError(
                f"--reasoning-effort {effort}: {gen.spec} is not a reasoning model (the table "
                f"lists {reasoning.declared('openai')}); if it is one, name it "
                f"{gen.spec}{reasoning.MARK}")
        return gen.plain()
    params = {k: v for k, v in gen.defaults.items() if k not in ("temperature", "max_tokens")}
    temperature = gen.given.get("temperature")
    if temperature is not None:
        if not t.temperature and temperature != 1:
            raise MathprobeError(
                f"--temperature {temperature:g}: {gen.spec} takes no temperature but the "
                "default 1 (OpenAI's reasoning models refuse any other); leave --temperature out")
        params["temperature"] = temperature
    if gen.given.get("max_tokens") is not None:
        params[t.max_tokens] = gen.given["max_tokens"]
    if effort is not None:
        if t.efforts and effort not in t.efforts:
            raise MathprobeError(f"--reasoning-effort {effort}: {gen.spec} takes "
                                 f"{', '.join(t.efforts)}")
        params["reasoning_effort"] = effort
    return params


BACKEND = BackendKind(name="openai", usage="openai:MODEL",
                      help="OpenAI, or a server speaking its API",
                      factory=make, key_env="OPENAI_API_KEY", endpoint_env="OPENAI_BASE_URL",
                      extra="openai",
                      slow_import="mathprobe.backends.openai_first_client", concurrency=256,
                      network=True, priced=True, rank=1,
                      options=(REASONING_EFFORT,), generation=generation, reasoning=True,
                      batches=make_batches, sample_seed="seed")
