"""What the sampled figures cost (--samples K, docs/sampling.md): a WE-MATH run of all 1,740
questions asked K times, its answers written straight to a store (no model, no flow: seeded
letters, right about half the time) and graded, then `report` for that run (every paper figure
of sample 0 and every sampled figure, 1000 bootstrap resamples each) and the sampled views alone
(`sampled_figure_units`, `wemath_sampled_figure_units` for the run, computed whole in DuckDB),
against `report` for the same store's run of one sample. Median of --repeat.

    python perf/samples.py [--samples 8] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.views import timed  # noqa: E402  (median of repeat, after a warm-up call)


def data_dir() -> Path:
    return Path(os.environ.get("MATHPROBE_DATA_DIR") or REPO.parent / "shared" / "data")


def make_store(db: Path, samples: int, seed: int = 0) -> int:
    """Runs 'one' (a sample per item) and 'many' (`samples` per item); returns the questions."""
    from mathprobe import registry, runs
    from mathprobe.items import Completion
    from mathprobe.store import RunSpec, open_store

    rng = random.Random(seed)
    bench = registry.get("wemath")
    store = open_store(db)
    dataset = runs.prepare(store, bench, data_dir())
    items = dataset.items
    for run_id, k in (("one", 1), ("many", samples)):
        store.start_run(RunSpec(run_id, "wemath", "m:0", "m", "plain", {}, samples=k), len(items))
        for s in range(k):
            store.append_responses(run_id, [(it.item_id, f"h{s}", Completion(
                text=f"<Answer>: <<{it.gold if rng.random() < 0.5 else 'E'}>>", sample=s))
                for it in items])
        runs.grade_run(store, bench, dataset, run_id)
        store.finish_run(run_id, "completed")
    return len(items)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from mathprobe import reports
    from mathprobe.store import close_all, open_store

    with tempfile.TemporaryDirectory(prefix="mathprobe-samples-") as tmp:
        db = Path(tmp) / "samples.duckdb"
        started = time.perf_counter()
        n = make_store(db, args.samples)
        made = time.perf_counter() - started
        close_all()
        store = open_store(db, read_only=True)
        one = timed(lambda: reports.build(store, "one"), args.repeat)
        many = timed(lambda: reports.build(store, "many"), args.repeat)
        views = {v: timed(lambda v=v: store.query(
            f"SELECT count(*), sum(hash(u)) FROM {v} u WHERE run_id = 'many'"), args.repeat)
            for v in ("sampled_figure_units", "wemath_sampled_figure_units")}
        rows = store.query("SELECT count(*) FROM wemath_sampled_figure_units "
                           "WHERE run_id = 'many'")[0][0]
        close_all()
    print(f"WE-MATH, {n} questions x {args.samples} samples ({n * args.samples} answers, "
          f"written and graded in {made:.1f} s); median of {args.repeat}:")
    print(f"  report, the run of one sample:        {one * 1000:8.1f} ms")
    print(f"  report, the run of {args.samples} samples:{'':10}{many * 1000:8.1f} ms")
    for v, t in views.items():
        print(f"  {v} for the run: {t * 1000:8.1f} ms" + (f" ({rows} rows)"
                                                          if v.startswith("wemath") else ""))


if __name__ == "__main__":
    main()
