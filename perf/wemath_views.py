"""How fast are the WE-MATH views over many runs?

Imports N runs of testmini-sized response sets (default 100 runs = 174,000 responses) through the
real `import` path into a fresh DuckDB file, then times computing every WE-MATH view for all runs
at once (each view fully materialised). Target: all views for 100 runs in under 0.5 s; the
authors' pandas script needs about 0.11 s per run.

    python perf/wemath_views.py [--runs 100] [--repeat 5] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathprobe import runs  # noqa: E402
from mathprobe.benchmarks import wemath  # noqa: E402
from mathprobe.registry import resolve_data_dir  # noqa: E402
from mathprobe.store import Store  # noqa: E402

VIEWS = ["wemath_four_dimensional", "wemath_step_accuracy", "wemath_category_accuracy",
         "wemath_concept_accuracy", "item_verdicts"]


def fake_results(rows: list[dict], seed: int) -> list[dict]:
    """A response set of a model right about 40% of the time, in varied answer formats."""
    rng = random.Random(seed)
    out = []
    for row in rows:
        letter = row["answer"] if rng.random() < 0.4 else rng.choice("ABCDE")
        form = rng.choice(["<Thought process>: <<...>> <Answer>: <<{}>>", "Answer: {}",
                           "The answer is {}", "{}"])
        out.append({**row, "response": form.format(letter)})
    return out


def import_runs(store: Store, data_dir: Path, tmp: Path, n_runs: int) -> list[str]:
    """`n_runs` testmini-sized response sets (fake_results) imported through the real path."""
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    ids = []
    for r in range(n_runs):
        f = Path(tmp) / f"run{r}.json"
        f.write_text(json.dumps(fake_results(rows, r)))
        ids.append(f"run{r:03d}")
        runs.import_official(store, wemath.benchmark, data_dir, f, ids[-1])
    return ids


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    data_dir = resolve_data_dir(args.data_dir)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.duckdb")
        started = time.perf_counter()
        import_runs(store, data_dir, Path(tmp), args.runs)
        load_s = time.perf_counter() - started
        (n,), = store.query("SELECT count(*) FROM responses")
        print(f"imported {args.runs} runs, {n} responses in {load_s:.1f} s "
              f"({n / load_s:,.0f} responses/s, import + grading)")

        per_view: dict[str, list[float]] = {v: [] for v in VIEWS}
        totals = []
        for _ in range(args.repeat):
            total = 0.0
            for view in VIEWS:
                t = time.perf_counter()
                result = store.query(f"SELECT * FROM {view}")
                dt = time.perf_counter() - t
                per_view[view].append(dt)
                total += dt
                assert result, view
            totals.append(total)
        for view in VIEWS:
            print(f"  {view:28s} median {statistics.median(per_view[view]) * 1000:7.1f} ms")
        wemath_total = statistics.median(
            [sum(per_view[v][i] for v in VIEWS if v.startswith("wemath")) for i in range(args.repeat)])
        print(f"every WE-MATH view for {args.runs} runs: median {wemath_total:.3f} s "
              f"(target < 0.5 s; authors' script ~{0.11 * args.runs:.0f} s)")
        print(f"including item_verdicts: median {statistics.median(totals):.3f} s")
        store.close()


if __name__ == "__main__":
    main()
