"""A real tritonserver (the nvidia-pytriton binary, CPU) serving a tiny randomly initialised
image-text-to-text model: the eval flow over gRPC, token log-probabilities checked against the
same model evaluated in-process, and a server killed mid-run."""
from __future__ import annotations

import asyncio
import io
import threading

import pytest
import torch

from mathprobe.backends.triton_grpc import TritonGenerate
from mathprobe.benchmarks import wemath
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from mathprobe.items import Request
from mathprobe.runs import progress
from mathprobe.store import open_store


def eval_flow(**params):
    """The eval flow as the command line runs it: its report, also for a run that ended
    incomplete (whose flow run ends Failed 'Incomplete: ...')."""
    return call_flow(_eval_flow, **params)


pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture(scope="module")
def model_dir(tiny_vlm):
    return tiny_vlm


@pytest.fixture(scope="module")
def server(triton_server):
    return triton_server


@pytest.fixture(scope="module")
def reference(model_dir):
    """The same checkpoint, loaded in-process with plain transformers calls."""
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(model_dir)
    model = AutoModelForImageTextToText.from_pretrained(model_dir).eval()
    return processor, model


def inprocess_logprobs(reference, prompt: str, image: bytes | None, generated: list[int]):
    """log p(generated[i] | image, prompt, generated[:i]) by one forward pass."""
    from PIL import Image

    processor, model = reference
    if image is not None:
        inputs = processor(images=Image.open(io.BytesIO(image)).convert("RGB"),
                           text=f"{processor.image_token}\n{prompt}", return_tensors="pt")
    else:
        inputs = processor.tokenizer(prompt, return_tensors="pt")
    n = inputs["input_ids"].shape[1]
    ids = torch.cat([inputs["input_ids"], torch.tensor([generated])], dim=1)
    extra = {k: v for k, v in inputs.items() if k not in ("input_ids", "attention_mask")}
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids), **extra).logits
    logp = torch.log_softmax(logits[0].float(), dim=-1)
    return n, [logp[n - 1 + i, t].item() for i, t in enumerate(generated)]


def test_eval_flow_through_triton_with_images_and_logprobs(server, reference, data_dir, db):
    report = eval_flow(benchmark="wemath", model="triton:lmm_generate", run_id="tri",
                       db=str(db), data_dir=str(data_dir), limit=6, concurrency=3, max_tokens=8,
                       triton_url=server.grpc_url)
    n = len(wemath.select(wemath.load(data_dir).items, 6))      # whole problems: 3 questions
    assert report["run"]["n_ok"] == n > 0 and report["run"]["status"] == "completed"
    store = open_store(db)
    rows = store.query("SELECT response_id, item_id, input_tokens, output_tokens FROM responses")
    items = wemath.load(data_dir).by_id()
    for response_id, item_id, n_in, n_out in rows:
        lps = store.query("SELECT token_id, logprob FROM token_logprobs WHERE response_id = ? "
                          "ORDER BY position", [response_id])
        assert len(lps) == n_out > 0
        item = items[item_id]
        prompt = wemath.build_prompt(item, "plain")
        image = open(item.image_path, "rb").read()
        n_prompt, expected = inprocess_logprobs(reference, prompt, image, [t for t, _ in lps])
        assert n_in == n_prompt                     # the prompt with its image tokens arrived
        # Triton decodes step by step with a KV cache, the reference in one forward pass: fp32
        # summation order differs by CPU (2e-4 seen on CI). A wrong token, position or image
        # moves a log-probability by far more than 2e-3.
        assert [lp for _, lp in lps] == pytest.approx(expected, abs=2e-3)


def test_image_and_text_reach_the_model(server, data_dir):
    item = wemath.load(data_dir).items[0]
    other = wemath.load(data_dir).items[5]
    backend = TritonGenerate("lmm_generate", url=server.grpc_url)

    async def ask(prompt, image):
        return await backend.complete(Request(item_id="x", model="triton:lmm_generate",
                                              prompt=prompt, params={"max_tokens": 4}, image=image))

    async def all_():
        try:
            base = await ask("What is shown?", open(item.image_path, "rb").read())
            other_image = await ask("What is shown?", open(other.image_path, "rb").read())
            no_image = await ask("What is shown?", None)
            other_text = await ask("Which option is right?", open(item.image_path, "rb").read())
            return base, other_image, no_image, other_text
        finally:
            await backend.aclose()

    base, other_image, no_image, other_text = asyncio.run(all_())
    first = [lp for *_, lp in base.token_logprobs]
    for changed in (other_image, no_image, other_text):
        assert changed.status == "ok"
        assert [lp for *_, lp in changed.token_logprobs][0] != pytest.approx(first[0], abs=1e-7)
    assert no_image.input_tokens < base.input_tokens      # image tokens only with an image


def test_token_logprobs_model_agrees_in_process(server, reference):
    processor, model = reference
    backend = TritonGenerate("lmm_generate", url=server.grpc_url)
    text, prefix = "The answer is 42, so option B.", "Question: what is six times seven?\n"

    async def score():
        try:
            return await backend.score(text, prefix=prefix), await backend.score(text)
        finally:
            await backend.aclose()

    with_prefix, bare = asyncio.run(score())
    tok = processor.tokenizer
    for got, pre in ((with_prefix, prefix), (bare, "")):
        ids = [tok.bos_token_id] + (tok(pre, add_special_tokens=False)["input_ids"] if pre else [])
        text_ids = tok(text, add_special_tokens=False)["input_ids"]
        full = torch.tensor([ids + text_ids])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=full).logits[0].float(), dim=-1)
        expected = [logp[len(ids) - 1 + i, t].item() for i, t in enumerate(text_ids)]
        assert [t for _, t, _ in got] == text_ids
        assert [lp for *_, lp in got] == pytest.approx(expected, abs=2e-3)
    assert with_prefix != bare


# ~40 s: a tritonserver of its own (~25 s to start on 2 cores), to be killed mid-run.
def test_server_killed_mid_run_then_restarted_and_retried(doomed_triton, server, data_dir, db,
                                                          monkeypatch):
    """A server of its own (started in the background: tests/conftest.py) is killed mid-run
    (the failed calls are recorded); the session's server then plays the restarted one (a
    second start would cost ~25 s, and tell nothing more: the retry reaches it by URL as it
    would a restarted server)."""
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.05")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_WAIT_S", "0.1")
    first = doomed_triton
    answered = threading.Event()
    done = []

    def listener(event, run_id, **data):
        if event == "done" and data["status"] == "ok":
            done.append(1)
            if len(done) >= 3:
                answered.set()

    progress.subscribe(listener)
    result = {}

    def run():
        result["report"] = eval_flow(
            benchmark="wemath", model="triton:lmm_generate", run_id="killed", db=str(db),
            data_dir=str(data_dir), limit=45, concurrency=1, max_tokens=48,
            triton_url=first.grpc_url)

    thread = threading.Thread(target=run)
    try:
        thread.start()
        assert answered.wait(120), "no answer arrived from the first server"
        first.kill()
        thread.join(300)
    finally:
        progress.unsubscribe(listener)
        first.kill()
    run1 = result["report"]["run"]
    assert run1["status"] == "incomplete"
    assert run1["n_ok"] >= 3 and run1["n_infra_failed"] > 0
    n = len(wemath.select(wemath.load(data_dir).items, 45))     # whole problems: <= 45
    assert run1["n_ok"] + run1["n_infra_failed"] == n
    errors = open_store(db).query("SELECT DISTINCT error FROM responses WHERE status = 'infra_failed'")
    assert all("UNAVAILABLE" in e for (e,) in errors), errors

    report = eval_flow(benchmark="wemath", model="triton:lmm_generate", run_id="killed",
                       db=str(db), data_dir=str(data_dir), limit=45, concurrency=4,
                       max_tokens=48, triton_url=server.grpc_url, retry_failed=True)
    assert report["run"]["status"] == "completed" and report["run"]["n_ok"] == n
    ok = open_store(db).query("SELECT count(*), count(DISTINCT item_id) FROM responses "
                              "WHERE status = 'ok'")
    assert ok == [(n, n)]
