"""Throughput of the `eval` flow against a bare asyncio + httpx loop.

Both send all 1740 WE-MATH questions with their images (OpenAI chat format, images as data
URLs), three times over, at concurrency 128, to the same loopback server answering after a fixed
50 ms (tests/support/fake_api.py, in its own process). The flow path is the real one: Prefect flow and
shard tasks, the OpenAI SDK, retries, the DuckDB writer, grading and the report. Target: the
flow's throughput at least 80% of the bare loop's, every response stored. The bare loop runs
twice: on httpx 0.28 and on httpx2, the client the OpenAI / Anthropic SDKs are built on now
(httpx's connection pool slows down badly at 128 requests in flight; httpx2's much less).

    python benchmarks/fanout.py [--concurrency 128] [--latency 0.05] [--repeat 3]
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

from tasks.benchmarks import wemath  # noqa: E402
from tasks.backends.openai_chat import image_mime  # noqa: E402
from tasks.registry import resolve_data_dir  # noqa: E402


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


def sdk_alone(data_dir: Path, concurrency: int, repeat: int) -> float:
    """The same requests through the official SDK (our backend) in one event loop, no flow."""
    from tasks import runs
    from tasks.backends.openai_chat import OpenAIChat

    requests = [runs.build_request(wemath.benchmark, it, "openai:bench", "plain",
                                       dict(wemath.DEFAULT_PARAMS))
                for it in wemath.load(data_dir).items]

    async def go() -> None:
        backend = OpenAIChat("bench")
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

        sdk_s = sdk_alone(data_dir, args.concurrency, args.repeat)
        print(f"OpenAI SDK alone, one loop: {n} requests in {sdk_s:.2f} s = {n / sdk_s:,.0f} "
              "req/s (the ceiling for any evaluator that calls the SDK)")

        from flows.eval import eval_flow
        from tasks.store import open_store

        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "fanout.duckdb")
            eval_flow(benchmark="wemath", model="openai:warmup", run_id="warmup", db=db,
                      data_dir=str(data_dir), limit=3)        # starts Prefect's API once
            t = time.perf_counter()
            for r in range(args.repeat):
                eval_flow(benchmark="wemath", model="openai:bench", run_id=f"fanout-{r}", db=db,
                          data_dir=str(data_dir), concurrency=args.concurrency)
            flow_s = time.perf_counter() - t
            stored = open_store(db).query(
                "SELECT count(*), count(*) FILTER (status = 'ok') FROM responses "
                "WHERE run_id LIKE 'fanout-%'")[0]
        print(f"eval flow:          {n} requests in {flow_s:.2f} s = {n / flow_s:,.0f} req/s "
              f"({stored[1]} ok of {stored[0]} stored)")
        for name, bare_s in bare.items():
            print(f"flow / bare {name} throughput: {bare_s / flow_s:.0%} (target >= 80%)")
        if stored != (n, n):
            sys.exit(f"expected {n} ok responses stored, got {stored}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
