"""`triton:<model>`: a model served by Triton Inference Server, over gRPC (tritonclient aio).

Talks to the `lmm_generate` interface of triton_models/ (PROMPT, IMAGE, MAX_NEW_TOKENS,
TEMPERATURE -> TEXT, TOKENS, TOKEN_IDS, LOGPROBS, INPUT_TOKENS) and scores texts with the
`token_logprobs` model. UNAVAILABLE, RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED are retried like
429/5xx for the API backends; a server that stays down gives `infra_failed`.
"""
from __future__ import annotations

from dataclasses import replace

from mathprobe import settings as environment
from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.backends.retry import (
    PermanentError,
    RetryPolicy,
    TransientError,
    call_with_retries,
    network_failure,
    retried,
)
from mathprobe.backends.transcript import flatten
from mathprobe.items import Completion, Request

DEFAULT_URL = "127.0.0.1:8001"
RETRYABLE = ("UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN")
GRPC_REASONS = (("connection refused", "connection refused"),
                ("connection reset", "connection reset by the server"),
                ("deadline_exceeded", "timed out"), ("deadline exceeded", "timed out"))


def _classify(exc: Exception) -> Exception:
    from tritonclient.utils import InferenceServerException

    if isinstance(exc, InferenceServerException):
        status = str(exc.status() or "")
        message = f"triton {status or 'error'}: {exc.message()}"
        # gRPC says what happened in its text: name it first, as the HTTP backends do
        said = next((label for words, label in GRPC_REASONS
                     if words in f"{status} {exc.message()}".lower()), None)
        if said:
            message = f"{said}: {message}"
        if any(code in status for code in RETRYABLE):
            return TransientError(message, overloaded="RESOURCE_EXHAUSTED" in status)
        return PermanentError(message)
    if isinstance(exc, (KeyError, IndexError, ValueError, TypeError)):
        return TransientError(f"malformed triton response: {type(exc).__name__}: {exc}")
    if isinstance(exc, (ConnectionError, OSError, TimeoutError)):
        return TransientError(network_failure(exc) or f"connection error: "
                              f"{type(exc).__name__}: {exc}")
    return PermanentError(f"{type(exc).__name__}: {exc}")


class TritonGenerate:
    kind = "triton"

    def __init__(self, model: str, *, url: str | None = None, policy: RetryPolicy | None = None,
                 score_model: str = "token_logprobs"):
        self.model = model
        self.url = url or environment.get("MATHPROBE_TRITON_URL") or DEFAULT_URL
        self.policy = policy or RetryPolicy()
        self.score_model = score_model
        self._client = None           # made on first use, inside the event loop that uses it

    def _connect(self):
        if self._client is None:
            import tritonclient.grpc.aio as grpcaio

            self._client = grpcaio.InferenceServerClient(self.url)
        return self._client

    @staticmethod
    def _input(name: str, value, datatype: str):
        import numpy as np  # here, not above: the registry imports this module to read BACKEND
        from tritonclient.grpc import InferInput

        arr = np.array([[value]], dtype=object if datatype == "BYTES" else None)
        if datatype == "INT32":
            arr = arr.astype(np.int32)
        elif datatype == "FP32":
            arr = arr.astype(np.float32)
        tensor = InferInput(name, list(arr.shape), datatype)
        tensor.set_data_from_numpy(arr)
        return tensor

    async def complete(self, request: Request) -> Completion:
        prompt = flatten(request)            # a chat's turns as one transcript
        inputs = [self._input("PROMPT", prompt.encode(), "BYTES")]
        if request.image is not None:
            inputs.append(self._input("IMAGE", request.image, "BYTES"))
        if "max_tokens" in request.params:
            inputs.append(self._input("MAX_NEW_TOKENS", int(request.params["max_tokens"]), "INT32"))
        if "temperature" in request.params:
            inputs.append(self._input("TEMPERATURE", float(request.params["temperature"]), "FP32"))

        async def attempt() -> Completion:
            try:
                result = await self._connect().infer(self.model, inputs,
                                                     client_timeout=self.policy.timeout_s)
                text = result.as_numpy("TEXT").reshape(-1)[0].decode("utf-8")
                tokens = [t.decode("utf-8", "replace") for t in result.as_numpy("TOKENS").reshape(-1)]
                ids = result.as_numpy("TOKEN_IDS").reshape(-1).tolist()
                lps = result.as_numpy("LOGPROBS").reshape(-1).tolist()
                n_in = int(result.as_numpy("INPUT_TOKENS").reshape(-1)[0])
            except Exception as exc:
                raise _classify(exc) from exc
            return Completion(text=text, input_tokens=n_in, output_tokens=len(ids),
                              token_logprobs=list(zip(tokens, ids, lps)))

        return await call_with_retries(attempt, self.policy)

    async def continue_text(self, request: Request) -> Completion:
        """Text generation from `request.prompt` exactly as given (no system prompt, no chat
        turns): the model continues the text (the contamination probes' protocol)."""
        return await self.complete(replace(request, system=None, turns=()))

    async def score(self, text: str, prefix: str = "") -> list[tuple[str, int, float]]:
        """(token, token_id, logprob) of each token of `text` after `prefix` (retried)."""
        inputs = [self._input("TEXT", text.encode(), "BYTES")]
        if prefix:
            inputs.append(self._input("PREFIX", prefix.encode(), "BYTES"))
        async def fetch() -> list[tuple[str, int, float]]:
            try:
                result = await self._connect().infer(self.score_model, inputs,
                                                     client_timeout=self.policy.timeout_s)
                tokens = [t.decode("utf-8", "replace") for t in result.as_numpy("TOKENS").reshape(-1)]
                return list(zip(tokens, result.as_numpy("TOKEN_IDS").reshape(-1).tolist(),
                                result.as_numpy("LOGPROBS").reshape(-1).tolist()))
            except Exception as exc:
                raise _classify(exc) from exc

        return await retried(fetch, self.policy)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def make(model: str, settings: Settings) -> TritonGenerate:
    return TritonGenerate(model, url=settings.url, policy=settings.policy)


BACKEND = BackendKind(name="triton", usage="triton:MODEL",
                      help="a model Triton serves", factory=make,
                      url_option="--triton-url", extra="triton", extra_modules=("tritonclient",),
                      concurrency=64, network=True,
                      scores_text=True, rank=3)
