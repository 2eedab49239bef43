"""Adaptive concurrency against fixed ones, on a server that rate-limits by requests in flight.

The loopback server (tests/support/fake_api.py, in its own process) answers after `--latency`
seconds, and answers 429 with `Retry-After: --retry-after` at once to a request that arrives
while K others are being answered, as a provider's concurrency cap does. The full WE-MATH
run's 1740 requests (with their images, built as they are sent, as a run sends them) go through
`mathprobe.runs.asking.respond` and the OpenAI SDK with the default retry policy, either
  * at a fixed concurrency c (what `--concurrency c` did before: every request holds its slot,
    also while it waits out a Retry-After), for c in a sweep around K, or
  * under the adaptive window with no option set (the run's ceiling is the provider's cap,
    256 for openai; the window starts at 16), as `mathprobe run` now sends.
Configurations are interleaved, `--repeat` times; the figures are medians of answers per
second (ok answers / wall); the load average is printed beside each round.

The client must not be what limits (the figure would measure the machine's load): the
default answers take 0.5 s, so the best is 64 answers a second, well within what one event
loop sends with images.

    python perf/adaptive.py [--k 32] [--latency 0.5] [--retry-after 1] [--repeat 3]

With `--random-429 P` it measures instead what 429s that are not about capacity cost: the same
run at `--concurrency C` (default 64) against a server that takes everything, and against one
that answers 429 (Retry-After `--retry-after`) to a share P of first attempts whatever is in
flight (issue 33: at P = 0.2 the window had stayed at 1-8 and the run took 260 s against about
15 s); the adaptive window and a fixed C each way, interleaved; medians of wall seconds and
their ratio to the run without faults (goal: within 3x).

    python perf/adaptive.py --random-429 0.2 [--concurrency 64] [--repeat 3]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mathprobe.backends import get_backend, provider_limit  # noqa: E402
from mathprobe.benchmarks import wemath  # noqa: E402
from mathprobe.registry import resolve_data_dir  # noqa: E402
from mathprobe.runs.adaptive_limit import AdaptiveLimit  # noqa: E402
from mathprobe.runs.asking import LazyRequests, respond  # noqa: E402
from mathprobe.runs.progress import Activity  # noqa: E402


def load() -> str:
    return os.getloadavg().__repr__()


def stored(rows) -> Future:
    done: Future = Future()
    done.set_result(None)
    return done


def one_run(items, window: AdaptiveLimit) -> dict:
    """Send the run's requests under `window`; wall seconds, counts, and the window over time."""
    activity = Activity()
    activity.window = window
    trace: list[int] = []

    async def go() -> dict:
        backend = get_backend("openai:bench")
        stop = asyncio.Event()

        async def watch() -> None:
            while not stop.is_set():
                trace.append(window.window)
                await asyncio.sleep(0.1)
        watcher = asyncio.ensure_future(watch())
        try:
            return await respond(backend, LazyRequests(wemath.benchmark, items, "openai:bench",
                                                       "plain", dict(wemath.DEFAULT_PARAMS)),
                                 stored, window=window, activity=activity)
        finally:
            stop.set()
            await watcher
            await backend.aclose()

    started = time.perf_counter()
    counts = asyncio.run(go())
    wall = time.perf_counter() - started
    return {"wall": wall, "ok": counts.get("ok", 0), "failed": counts.get("infra_failed", 0),
            "429": activity.overloaded, "trace": trace}


def serve(*options: str) -> tuple[subprocess.Popen, str]:
    """A loopback server (tests/support/fake_api.py) in its own process, and its OpenAI URL."""
    server = subprocess.Popen([sys.executable, "-m", "tests.support.fake_api", *options],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    return server, f"http://127.0.0.1:{int(server.stdout.readline())}/v1"


def random_429(items, args) -> None:
    """Clean and faulty servers, the adaptive window and a fixed --concurrency, interleaved."""
    c = args.concurrency
    faulty = ("--latency", str(args.latency), "--retry-after", str(args.retry_after),
              "--first-429", str(args.random_429))
    servers = {"no faults": ("--latency", str(args.latency)), f"{args.random_429:.0%} 429": faulty}
    os.environ["OPENAI_API_KEY"] = "sk-bench"
    configs = [(where, how) for where in servers for how in ("adaptive", "fixed")]
    results: dict[tuple[str, str], list[dict]] = {k: [] for k in configs}
    print(f"{len(items)} WE-MATH requests with images, --concurrency {c}; servers answer in "
          f"{args.latency:g} s, the faulty one 429 + Retry-After {args.retry_after:g} s to "
          f"{args.random_429:.0%} of first attempts")
    for r in range(args.repeat):
        print(f"round {r + 1}: load {load()}", flush=True)
        for where, how in (configs if r % 2 == 0 else configs[::-1]):
            server, url = serve(*servers[where])     # fresh: every first attempt is a first
            os.environ["OPENAI_BASE_URL"] = url
            try:
                window = AdaptiveLimit(c) if how == "adaptive" else AdaptiveLimit.fixed(c)
                res = one_run(items, window)
            finally:
                server.terminate()
                server.wait()
            results[(where, how)].append(res)
            print(f"  {where:10} {how:8} {res['wall']:6.2f} s  {res['429']:4d} x 429  "
                  f"{res['failed']:3d} failed  window median "
                  f"{statistics.median(res['trace'] or [0])}  cuts {window.cuts} "
                  f"(undone {window.undone})", flush=True)
    wall = {k: statistics.median(x["wall"] for x in v) for k, v in results.items()}
    print(f"\nmedians of {args.repeat} (wall seconds; ratio to the same run without faults):")
    for (where, how), w in wall.items():
        ok = statistics.median(x["ok"] for x in results[(where, how)])
        print(f"  {where:10} {how:8} {w:6.2f} s  x{w / wall[('no faults', how)]:.2f}  "
              f"ok {ok:.0f} of {len(items)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=32, help="requests the server takes at once")
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--retry-after", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fixed", default=None, help="fixed concurrencies, comma-separated "
                    "(default: 3K/4, K, 5K/4, 2K)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--random-429", type=float, default=None, help="429s not about capacity: "
                    "this share of first attempts")
    ap.add_argument("--concurrency", type=int, default=64, help="with --random-429")
    args = ap.parse_args()
    if args.random_429 is not None:
        random_429(wemath.load(resolve_data_dir(args.data_dir)).items, args)
        return
    k = args.k
    fixed = ([int(c) for c in args.fixed.split(",")] if args.fixed else
             sorted({3 * k // 4, k, 5 * k // 4, 2 * k}))
    items = wemath.load(resolve_data_dir(args.data_dir)).items
    server = subprocess.Popen([sys.executable, "-m", "tests.support.fake_api", "--latency",
                               str(args.latency), "--max-in-flight", str(k), "--retry-after",
                               str(args.retry_after)], cwd=REPO, stdout=subprocess.PIPE,
                              text=True)
    port = int(server.stdout.readline())
    os.environ.update(OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1", OPENAI_API_KEY="sk-bench")
    ceiling = provider_limit("openai:bench")
    configs = [("adaptive", None)] + [(f"fixed {c}", c) for c in fixed]
    results: dict[str, list[dict]] = {name: [] for name, _ in configs}
    print(f"{len(items)} WE-MATH requests with images; server: {k} at once, {args.latency:g} s "
          f"each, 429 + Retry-After {args.retry_after:g} s above; adaptive: no option set "
          f"(ceiling {ceiling}, start {min(16, ceiling)})")
    try:
        for r in range(args.repeat):
            print(f"round {r + 1}: load {load()}", flush=True)
            order = configs if r % 2 == 0 else configs[::-1]
            for name, c in order:
                window = AdaptiveLimit(ceiling) if c is None else AdaptiveLimit.fixed(c)
                res = one_run(items, window)
                results[name].append(res)
                print(f"  {name:10} {res['wall']:6.2f} s  {res['ok'] / res['wall']:6.1f} ok/s  "
                      f"{res['429']:5d} x 429  {res['failed']:3d} failed", flush=True)
            print(f"  load {load()}")
    finally:
        server.terminate()
        server.wait()

    rate = {name: statistics.median(x["ok"] / x["wall"] for x in runs)
            for name, runs in results.items()}
    best = max((n for n in rate if n != "adaptive"), key=rate.get)
    clean = [n for n in rate if n != "adaptive" and all(x["failed"] == 0 for x in results[n])]
    best_clean = max(clean, key=rate.get) if clean else None
    print(f"\nmedians of {args.repeat} (ok answers per second; ideal {k / args.latency:.0f}):")
    for name in rate:
        runs = results[name]
        n429 = statistics.median(x["429"] for x in runs)
        failed = statistics.median(x["failed"] for x in runs)
        print(f"  {name:10} {rate[name]:6.1f} ok/s  429s {n429:6.0f}  failed {failed:4.0f}")
    adaptive = results["adaptive"]
    settled = sorted(w for x in adaptive for w in x["trace"][len(x["trace"]) // 5:])
    low, high = settled[len(settled) // 10], settled[9 * len(settled) // 10]
    print(f"adaptive window after the first fifth of each run: median "
          f"{statistics.median(settled)}, 10-90% {low}-{high} (K = {k})")
    print(f"adaptive = {rate['adaptive'] / rate[best]:.0%} of the best fixed ({best}: "
          f"{rate[best]:.1f} ok/s)" + (f"; {rate['adaptive'] / rate[best_clean]:.0%} of the best "
                                       f"fixed that failed no item ({best_clean})"
                                       if best_clean and best_clean != best else ""))


if __name__ == "__main__":
    main()
