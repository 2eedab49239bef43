"""Throughput of the `eval` flow against the OpenAI SDK alone and a bare asyncio + httpx loop.

All send the 1740 WE-MATH questions with their images (OpenAI chat format, images as data
URLs), three times over, at concurrency 128, to the same loopback server answering after a fixed
50 ms (tests/support/fake_api.py, in its own process). The flow path is the real one: Prefect flow and
shard tasks, the OpenAI SDK, retries, the DuckDB writer, grading and the report.

Printed side by side:
  * the OpenAI SDK alone in one event loop (our backend's request code, no flow, no store):
    on the SDK's default transport (httpx2) and on its aiohttp transport, which the backend
    uses; the first is the ceiling for any evaluator calling the SDK as it comes;
  * the flow while asking (first request to last answer: what the SDK-alone loops measure);
  * the flow end to end, each `eval_flow` call from its start to its return (Prefect's flow
    run, loading, asking, storing, grading, the report and its artifact): the figure
    inspect_ai reports for an eval;
  * bare asyncio loops on httpx 0.28 and httpx2 (no SDK), for scale.

    python perf/fanout.py [--concurrency 128] [--latency 0.05] [--repeat 3]
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

import httpx  # noqa: E402
import httpx2  # noqa: E402  (the HTTP client the OpenAI / Anthropic SDKs use)

from mathprobe.backends.openai_chat import image_mime  # noqa: E402
from mathprobe.benchmarks import wemath  # noqa: E402
from mathprobe.registry import resolve_data_dir  # noqa: E402


def request_bodies(data_dir: Path, model: str) -> list[bytes]:
    """The same chat-completions bodies the flow sends (prompt, image data URL, parameters)."""
    bodies = []
    for item in wemath.load(data_dir).items:
        image = Path(item.image_path).read_bytes()
        url = f"data:{image_mime(image)};base64,{base64.b64encode(image).decode()}"
        bodies.append(json.dumps({
            "model": model, **wemath.DEFAULT_PARAMS,
            "messages": [{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": url}},
                {"type": "text", "text": wemath.build_prompt(item)}]}],
        }).encode())
    return bodies


async def bare_loop(url: str, bodies: list[bytes], concurrency: int, lib=httpx) -> int:
    """One event loop, one client, a semaphore: the least a program can do for these requests."""
    sem = asyncio.Semaphore(concurrency)
    limits = lib.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with lib.AsyncClient(limits=limits, timeout=60) as client:
        async def one(body: bytes) -> int:
            async with sem:
                r = await client.post(url, content=body, headers={
                    "content-type": "application/json", "authorization": "Bearer sk-bench"})
                r.json()["choices"][0]["message"]["content"]
                return r.status_code
        codes = await asyncio.gather(*(one(b) for b in bodies))
    return sum(c == 200 for c in codes)


def sdk_alone(data_dir: Path, concurrency: int, repeat: int, transport: str = "aiohttp") -> float:
    """The same requests through the official SDK (our backend's request code) in one event
    loop, no flow: on the SDK's aiohttp transport (as the backend sends them) or, with
    transport="httpx2", on the SDK's default client."""
    import openai

    from mathprobe import runs
    from mathprobe.backends.openai_chat import OpenAIChat

    requests = [runs.build_request(wemath.benchmark, it, "openai:bench", "plain",
                                       dict(wemath.DEFAULT_PARAMS))
                for it in wemath.load(data_dir).items]

    async def go() -> None:
        backend = OpenAIChat("bench")
        if transport == "httpx2":                     # the SDK's own default client
            await backend.client.close()
            backend.client = openai.AsyncOpenAI(max_retries=0, timeout=backend.policy.timeout_s)
        sem = asyncio.Semaphore(concurrency)

        async def one(r):
            async with sem:
                assert (await backend.complete(r)).status == "ok"

        await asyncio.gather(*(one(r) for r in requests))
        await backend.aclose()

    t = time.perf_counter()
    for _ in range(repeat):
        asyncio.run(go())
    return time.perf_counter() - t


def flow(data_dir: Path, concurrency: int, repeat: int, before_each=lambda: None
         ) -> tuple[float, float, tuple[int, int]]:
    """`repeat` full WE-MATH runs of the eval flow in this process (after a 3-question warm-up
    run that starts Prefect's API), `before_each()` run before each (the other loops, so all
    are measured interleaved, under the same load): (seconds end to end, seconds while asking,
    (responses stored, ok)). While asking = from a run's `start` event to its last answer."""
    from mathprobe.flows.eval import eval_flow
    from mathprobe.runs import progress
    from mathprobe.store import open_store

    asking: dict[str, list[float]] = {}

    def listener(event: str, run_id: str, **data) -> None:
        if event == "start":
            asking[run_id] = [time.perf_counter()] * 2
        elif event == "done" and run_id in asking:
            asking[run_id][1] = time.perf_counter()

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "fanout.duckdb")
        eval_flow(benchmark="wemath", model="openai:warmup", run_id="warmup", db=db,
                  data_dir=str(data_dir), limit=3)        # starts Prefect's API once
        progress.subscribe(listener)
        flow_s = 0.0
        for r in range(repeat):
            before_each()
            t = time.perf_counter()
            eval_flow(benchmark="wemath", model="openai:bench", run_id=f"fanout-{r}", db=db,
                      data_dir=str(data_dir), concurrency=concurrency)
            flow_s += time.perf_counter() - t
        progress.unsubscribe(listener)
        stored = open_store(db).query(
            "SELECT count(*), count(*) FILTER (status = 'ok') FROM responses "
            "WHERE run_id LIKE 'fanout-%'")[0]
    return flow_s, sum(b - a for a, b in asking.values()), stored


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    data_dir = resolve_data_dir(args.data_dir)

    server = subprocess.Popen([sys.executable, "-m", "tests.support.fake_api", "--latency",
                               str(args.latency)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    base = f"http://127.0.0.1:{port}/v1"
    os.environ.update(OPENAI_BASE_URL=base, OPENAI_API_KEY="sk-bench")
    try:
        bodies = request_bodies(data_dir, "bench")
        n = len(bodies) * args.repeat
        bare: dict[str, float] = {}
        for lib in (httpx, httpx2):
            t = time.perf_counter()
            ok = 0
            for _ in range(args.repeat):
                ok += asyncio.run(bare_loop(f"{base}/chat/completions", bodies,
                                            args.concurrency, lib))
            bare[lib.__name__] = time.perf_counter() - t
            print(f"bare asyncio+{lib.__name__} {lib.__version__}: {n} requests in "
                  f"{bare[lib.__name__]:.2f} s = {n / bare[lib.__name__]:,.0f} req/s ({ok} ok)")

        sdk = {"httpx2": 0.0, "aiohttp": 0.0}

        def sdk_loops() -> None:
            for transport in sdk:
                sdk[transport] += sdk_alone(data_dir, args.concurrency, 1, transport)

        flow_s, asking_s, stored = flow(data_dir, args.concurrency, args.repeat, sdk_loops)
        print(f"\n{n} requests, concurrency {args.concurrency}, {args.latency * 1000:.0f} ms "
              "server:")
        rows = [("OpenAI SDK alone, one loop, default transport (httpx2)", sdk["httpx2"]),
                ("OpenAI SDK alone, one loop, aiohttp transport (the backend's)", sdk["aiohttp"]),
                ("eval flow while asking (first request to last answer)", asking_s),
                ("eval flow end to end (each eval_flow call, start to return)", flow_s)]
        for label, secs in rows:
            print(f"  {label:62} {secs:6.2f} s = {n / secs:5,.0f} req/s "
                  f"= {sdk['httpx2'] / secs:4.0%} of the SDK's default ceiling")
        print(f"  ({stored[1]} ok of {stored[0]} stored; bare loops without the SDK: "
              + ", ".join(f"{k} {n / v:,.0f} req/s" for k, v in bare.items()) + ")")
        print(f"  the flow keeps {sdk['aiohttp'] / asking_s:.0%} of its own transport's ceiling "
              "while asking")
        print(json.dumps({"requests": n, **{f"sdk_alone_{k}_s": round(v, 3) for k, v in sdk.items()},
                          "flow_asking_s": round(asking_s, 3), "flow_end_to_end_s": round(flow_s, 3),
                          **{f"bare_{k}_s": round(v, 3) for k, v in bare.items()}}))
        if stored != (n, n):
            sys.exit(f"expected {n} ok responses stored, got {stored}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
