"""How long do `mathprobe compare` and the HTML report take over many runs?

Imports N WE-MATH runs (default 100, testmini-sized: 174,000 responses) through the real `import`
path into a fresh DuckDB file, then times, each `--repeat` times: `compare` over all of them
(every figure with its bootstrap interval, 1000 resamples of whole problems, and every run against
the first), and the HTML report of all of them (the same, plus the plots, the item browser and
writing the file). Target: seconds, not minutes.

    python perf/report_build.py [--runs 100] [--repeat 3] [--data-dir DIR] [--keep FILE]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathprobe.registry import resolve_data_dir  # noqa: E402
from mathprobe.reports import compare, html  # noqa: E402
from mathprobe.store import Store  # noqa: E402
from perf.wemath_views import import_runs  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--keep", default=None, help="also write the last HTML report here")
    args = ap.parse_args()
    data_dir = resolve_data_dir(args.data_dir)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.duckdb")
        started = time.perf_counter()
        ids = import_runs(store, data_dir, Path(tmp), args.runs)
        (n,), = store.query("SELECT count(*) FROM responses")
        print(f"imported {args.runs} runs, {n} responses in {time.perf_counter() - started:.1f} s")

        compare_s, html_s = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            result = compare.compare(store, ids)
            compare_s.append(time.perf_counter() - t)
            out = Path(args.keep) if args.keep else Path(tmp) / "report.html"
            t = time.perf_counter()
            info = html.write(store, ids, out, data_dir=data_dir)
            html_s.append(time.perf_counter() - t)
        b = result.benchmarks[0]
        n_figures = sum(len(f) for f in b.figures.values())
        print(f"compare, {args.runs} runs ({n_figures} figures with intervals, "
              f"{len(b.differences)} paired differences): median "
              f"{statistics.median(compare_s):.2f} s (runs: "
              f"{', '.join(f'{x:.2f}' for x in compare_s)})")
        print(f"HTML report, {args.runs} runs ({info['plots']} plots, {info['items']} answers in "
              f"the item browser, {len(info['items_left_out'])} runs left out of it, "
              f"{info['bytes'] / 1e6:.1f} MB): median {statistics.median(html_s):.2f} s (runs: "
              f"{', '.join(f'{x:.2f}' for x in html_s)})")
        store.close()


if __name__ == "__main__":
    main()
