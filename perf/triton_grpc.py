"""Requests/s and p50/p99 latency through Triton gRPC, against calling the same model in-process.

A tiny randomly initialised image-text-to-text model (mathprobe/serving/tiny_model.py) is served by the real
tritonserver on CPU (mathprobe/serving/triton_server.py); the same WE-MATH prompts with their images go
through the `triton:` backend (gRPC, async, `--concurrency` in flight, dynamic batching on the
server) and through mathprobe.serving.hf_runtime.HFModel.generate in this process (one at a time, the way a
simple in-process evaluator calls it). The difference is Triton's overhead (serialisation,
gRPC, the python-backend stub) minus what dynamic batching wins back.

    python perf/triton_grpc.py [--requests 200] [--concurrency 8] [--max-new-tokens 8]
                                     [--model-dir DIR] [--kind vlm|text] [--device cpu|cuda]
                                     [--hidden 64 --layers 2]

On a machine without the benchmark's dependencies (a GPU machine with torch and transformers but
no DuckDB or Prefect), prepare the requests here and measure there:

    python perf/triton_grpc.py --write-requests DIR [--requests 200]   # here
    python perf/triton_grpc.py --requests-file DIR/requests.jsonl --device cuda   # there
"""
from __future__ import annotations

import argparse
import asyncio
import json  # noqa: E402
import statistics
import tempfile
import time
from pathlib import Path

from mathprobe.backends.triton_grpc import TritonGenerate  # noqa: E402
from mathprobe.items import Request  # noqa: E402
from mathprobe.serving import tiny_model  # noqa: E402
from mathprobe.serving.hf_runtime import HFModel  # noqa: E402
from mathprobe.serving.triton_server import TritonServer  # noqa: E402


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def summary(name: str, n: int, wall: float, lat: list[float], tokens: int) -> str:
    return (f"{name:22s} {n / wall:7.1f} req/s  p50 {1000 * pct(lat, 50):7.1f} ms  "
            f"p99 {1000 * pct(lat, 99):7.1f} ms  {tokens / wall:8.1f} generated tokens/s")


async def through_triton(url: str, requests: list[Request], concurrency: int):
    backend = TritonGenerate("lmm_generate", url=url)
    sem = asyncio.Semaphore(concurrency)
    lat: list[float] = []
    tokens = 0

    async def one(r: Request) -> None:
        nonlocal tokens
        async with sem:
            t = time.perf_counter()
            c = await backend.complete(r)
            lat.append(time.perf_counter() - t)
            assert c.status == "ok", c.error
            tokens += c.output_tokens

    t0 = time.perf_counter()
    await asyncio.gather(*(one(r) for r in requests))
    wall = time.perf_counter() - t0
    await backend.aclose()
    return wall, lat, tokens


def wemath_requests(data_dir: str | None, n: int, max_new_tokens: int) -> list[Request]:
    """The first `n` WE-MATH questions with their images, as the `triton:` backend sends them."""
    from mathprobe.benchmarks import wemath
    from mathprobe.registry import resolve_data_dir

    items = wemath.load(resolve_data_dir(data_dir)).items[:n]
    return [Request(item_id=it.item_id, model="triton:lmm_generate", prompt=wemath.build_prompt(it),
                    image=Path(it.image_path).read_bytes(),
                    params={"max_tokens": max_new_tokens, "temperature": 0.0}) for it in items]


def write_requests(folder: Path, requests: list[Request]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "requests.jsonl", "w") as out:
        for i, r in enumerate(requests):
            (folder / f"{i}.png").write_bytes(r.image)
            out.write(json.dumps({"item_id": r.item_id, "prompt": r.prompt, "image": f"{i}.png",
                                  "params": r.params}) + "\n")


def read_requests(path: Path) -> list[Request]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [Request(item_id=r["item_id"], model="triton:lmm_generate", prompt=r["prompt"],
                    image=(path.parent / r["image"]).read_bytes(), params=r["params"])
            for r in rows]


def device_name(device: str) -> str:
    if device.startswith("cuda"):
        import torch

        return torch.cuda.get_device_name(torch.device(device))
    return "cpu"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=8)
    ap.add_argument("--model-dir", default=None, help="default: build a random model")
    ap.add_argument("--kind", default="vlm")
    ap.add_argument("--hidden", type=int, default=64, help="the random model's width")
    ap.add_argument("--layers", type=int, default=2, help="the random model's depth")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--write-requests", type=Path, default=None,
                    help="write the requests (prompts, images) to this folder and stop")
    ap.add_argument("--requests-file", type=Path, default=None,
                    help="read the requests from --write-requests' requests.jsonl")
    ap.add_argument("--triton-log", type=Path, default=None,
                    help="keep tritonserver's log here (default: a temporary folder)")
    args = ap.parse_args()

    if args.requests_file:
        requests = read_requests(args.requests_file)[:args.requests]
        for r in requests:
            r.params["max_tokens"] = args.max_new_tokens
    else:
        requests = wemath_requests(args.data_dir, args.requests, args.max_new_tokens)
    if args.write_requests:
        write_requests(args.write_requests, requests)
        print(f"wrote {len(requests)} requests to {args.write_requests}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(args.model_dir) if args.model_dir else tiny_model.build(
            Path(tmp) / "m", kind=args.kind, hidden=args.hidden, layers=args.layers)
        model = HFModel(model_dir, device=args.device)
        model.generate([requests[0].prompt], [requests[0].image], max_new_tokens=2)   # warm up
        lat, tokens = [], 0
        t0 = time.perf_counter()
        for r in requests:
            t = time.perf_counter()
            out = model.generate([r.prompt], [r.image], max_new_tokens=args.max_new_tokens)[0]
            lat.append(time.perf_counter() - t)
            tokens += len(out.token_ids)
        inproc = (time.perf_counter() - t0, lat, tokens)
        del model

        with TritonServer(model_dir, log_file=args.triton_log or Path(tmp) / "triton.log") as server:
            asyncio.run(through_triton(server.grpc_url, requests[:8], 4))           # warm up
            triton = asyncio.run(through_triton(server.grpc_url, requests, args.concurrency))
            triton1 = asyncio.run(through_triton(server.grpc_url, requests, 1))

    n = len(requests)
    print(f"{n} WE-MATH requests with images, {args.max_new_tokens} new tokens, random {args.kind} "
          f"model (hidden {args.hidden}, {args.layers} layers) on {device_name(args.device)}")
    print(summary("in-process (serial)", n, *inproc))
    print(summary("triton gRPC, 1 in flight", n, *triton1))
    print(summary(f"triton gRPC, {args.concurrency} in flight", n, *triton))
    print(f"per-request overhead of Triton at 1 in flight: "
          f"{1000 * (pct(triton1[1], 50) - pct(inproc[1], 50)):.1f} ms (p50); throughput "
          f"{(n / triton[0]) / (n / inproc[0]):.2f}x in-process at {args.concurrency} in flight")


if __name__ == "__main__":
    main()
