"""Per-run figures on a store of a million responses: every view for one run, `report` for one
run, every WE-MATH figure for all runs against the authors' pandas scripts, and the views of
another version of the SQL (a git ref) compared row for row with this checkout's.

The store is `benchmarks/bigstore.py`'s (about 1,075,000 responses over 612 runs of the three
benchmarks; built once, cached). Targets (issue 14): each view for one run under 20 ms,
`report` for one run under 0.3 s, all WE-MATH figure views for all runs at least 50x faster per
run than the authors' evaluation/four_dimensional_metrics.py + evaluation/accuracy.py
(github We-Math/We-Math) on one response file. Their scripts are never part of this repository:
give a checkout of their evaluation/ folder and a Python with pandas (--authors-dir,
--authors-python, or $WEMATH_AUTHORS_DIR / $WEMATH_AUTHORS_PYTHON); without them that line is
left out.

    python benchmarks/views.py [--scale 1.0] [--repeat 5] [--compare-ref main]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from benchmarks import bigstore  # noqa: E402

WEMATH_FIGURES = ["wemath_four_dimensional", "wemath_step_accuracy", "wemath_category_accuracy",
                  "wemath_concept_accuracy"]
# Cross-run by definition (paper Fig. 5 picks one zero-shot run per model among all runs): its
# run_id column names the chosen run, so it is timed whole, not per run.
CROSS_RUN = {"conceptmath_mean_concept_runs"}


def views(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Every view of the store and its columns."""
    out: dict[str, list[str]] = {}
    for name, col in con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() c JOIN duckdb_views() v "
            "ON v.view_name = c.table_name AND v.database_name = c.database_name "
            "WHERE NOT v.internal AND v.database_name = current_database() "
            "ORDER BY table_name, column_index").fetchall():
        out.setdefault(name, []).append(col)
    return out


def sample_runs(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Runs to time per-run views on: a few of each kind, spread over the store."""
    kinds = {
        "wemath": "benchmark = 'wemath'",
        "conceptmath": "benchmark = 'conceptmath' AND setting IN ('zs', 'cot', 'fs', 'official')",
        "probe": "benchmark = 'conceptmath' AND setting NOT IN ('zs', 'cot', 'fs', 'official')",
        "cmmath": "benchmark = 'cmmath' AND setting <> 'judge'",
    }
    out = {}
    for kind, where in kinds.items():
        ids = [r for (r,) in con.execute(f"SELECT run_id FROM runs WHERE {where} ORDER BY run_id").fetchall()]
        out[kind] = [ids[i * (len(ids) - 1) // 3] for i in range(4)] if len(ids) > 3 else ids
    return out


def runs_for(view: str, runs: dict[str, list[str]]) -> list[str]:
    if view.startswith("wemath_"):
        return runs["wemath"]
    if view.startswith("cmmath_"):
        return runs["cmmath"]
    if view.startswith(("contamination_", "conceptmath_probe", "conceptmath_mink",
                        "conceptmath_classification")):
        return runs["probe"]
    if view.startswith("conceptmath_"):
        return runs["conceptmath"]
    return [r for rs in runs.values() for r in rs[:2]]


def timed(fn, repeat: int) -> float:
    fn()                                     # warm: the first query of a view binds it
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def per_run_views(db: Path, repeat: int) -> list[tuple[str, float, int]]:
    """(view, slowest median over the sampled runs in seconds, rows) of every per-run view."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = sample_runs(con)
        out = []
        for view, cols in views(con).items():
            if "run_id" not in cols or view in CROSS_RUN:
                continue
            worst, rows = 0.0, 0
            for run_id in runs_for(view, runs):
                q = lambda: con.execute(f"SELECT * FROM {view} WHERE run_id = ?", [run_id]).fetchall()  # noqa: E731
                worst = max(worst, timed(q, repeat))
                rows = max(rows, len(q()))
            out.append((view, worst, rows))
        return out
    finally:
        con.close()


def whole_views(db: Path, names: list[str], repeat: int) -> dict[str, float]:
    """Median seconds to compute each view for all runs, fully materialised."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {v: timed(lambda v=v: con.execute(f"SELECT * FROM {v}").fetchall(), repeat)
                for v in names}
    finally:
        con.close()


def report_per_run(db: Path, repeat: int) -> dict[str, float]:
    """Median seconds of `reports.build` for a run of each benchmark (what `mathprobe report`
    computes, on a read-only open of the store)."""
    from tasks import reports
    from tasks.store import close_all, open_store

    store = open_store(db, read_only=True)
    try:
        con = store.con
        runs = sample_runs(con)
        return {kind: timed(lambda r=runs[kind][1]: reports.build(store, r), repeat)
                for kind in ("wemath", "conceptmath", "cmmath")}
    finally:
        close_all()


def authors_per_run(authors_dir: Path, python: str, data_dir: Path, runs: int,
                    repeat: int) -> float | None:
    """Median seconds per response file of the authors' two evaluation scripts (Table 2, then
    Table 1), run in-process by `python` (with pandas), startup and imports excluded."""
    driver = r"""
import contextlib, io, json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import accuracy, four_dimensional_metrics as fdm
files, nodes, repeat = json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
per = []
for f in files:
    times = []
    for _ in range(repeat + 1):
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            fdm.evaluate_models("m", f)
            accuracy.evaluate_models("m", f, nodes)
        times.append(time.perf_counter() - t)
    per.append(statistics.median(times[1:]))
print(statistics.median(per))
"""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for r in range(runs):
            f = Path(tmp) / f"run{r}.json"
            f.write_text(json.dumps(bigstore.wemath_results(data_dir, r % 4)))
            files.append(str(f))
        out = subprocess.run([python, "-c", driver, str(authors_dir), json.dumps(files),
                              str(data_dir / "wemath" / "knowledge_structure_nodes.json"),
                              str(repeat)], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"  (the authors' scripts failed: {out.stderr.strip().splitlines()[-1:]})")
        return None
    return float(out.stdout.strip().splitlines()[-1])


# -- another version of the SQL, compared row for row --------------------------------------------
def apply_ref_sql(db: Path, ref: str) -> None:
    """Apply the SQL files of git `ref` (the same files this checkout applies) to `db`."""
    from tasks.store.sql import sql_files

    con = duckdb.connect(str(db))
    try:
        for f in sql_files():
            rel = f.resolve().relative_to(REPO)
            text = subprocess.run(["git", "show", f"{ref}:{rel}"], cwd=REPO, capture_output=True,
                                  text=True)
            if text.returncode == 0:
                con.execute(text.stdout)
        con.execute("DELETE FROM store_meta WHERE key = 'sql_layer'")   # not this checkout's
    finally:
        con.close()


def fingerprints(db: Path, names: list[str]) -> dict[str, tuple]:
    """(rows, an order-independent hash of every row) of each view's full output."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {v: con.execute(f"SELECT count(*), sum(hash(t)::HUGEINT) FROM {v} t").fetchone()
                for v in names}
    finally:
        con.close()


def compare_with(db: Path, ref: str, repeat: int) -> tuple[list[str], dict[str, tuple[float, float]]]:
    """Views whose full output differs between `ref`'s SQL and this checkout's, and the time
    of each view for all runs under both (seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old.duckdb"
        shutil.copy(db, old)
        apply_ref_sql(old, ref)
        con = duckdb.connect(str(db), read_only=True)
        names = sorted(set(views(con)))
        con.close()
        old_con = duckdb.connect(str(old), read_only=True)
        names = [n for n in names if n in views(old_con)]
        old_con.close()
        differ = [v for v, (a, b) in zip(names, zip(fingerprints(old, names).values(),
                                                       fingerprints(db, names).values())) if a != b]
        t_old = whole_views(old, names, repeat)
        t_new = whole_views(db, names, repeat)
    return differ, {v: (t_old[v], t_new[v]) for v in names}


def main() -> None:
    from tasks.registry import resolve_data_dir
    from tasks.store import Store

    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--compare-ref", default=None, help="a git ref whose SQL to compare with")
    ap.add_argument("--authors-dir", default=os.environ.get("WEMATH_AUTHORS_DIR"))
    ap.add_argument("--authors-python", default=os.environ.get("WEMATH_AUTHORS_PYTHON"))
    args = ap.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    db = bigstore.get(data_dir, args.scale)
    Store(db).close()                   # this checkout's views on the cached data
    print(f"store: {bigstore.describe(db)}")
    for name, value in run_all(db, data_dir, args).items():
        print(f"{name}: {value}")


def run_all(db: Path, data_dir: Path, args) -> dict[str, object]:
    out: dict[str, object] = {}
    per = per_run_views(db, args.repeat)
    for view, t, rows in per:
        print(f"  {view:36s} one run {t * 1000:7.1f} ms ({rows} rows)")
    worst = max(per, key=lambda p: p[1])
    out["slowest view for one run"] = f"{worst[0]} {worst[1] * 1000:.1f} ms (target < 20 ms)"
    rep = report_per_run(db, args.repeat)
    out["report for one run"] = ", ".join(f"{k} {v:.3f} s" for k, v in rep.items()) + \
        " (target < 0.3 s)"
    con = duckdb.connect(str(db), read_only=True)
    (n_wemath,), = con.execute("SELECT count(*) FROM runs WHERE benchmark = 'wemath'").fetchall()
    con.close()
    whole = whole_views(db, WEMATH_FIGURES, args.repeat)
    total = sum(whole.values())
    out["all WE-MATH figure views, all runs"] = (f"{total:.3f} s for {n_wemath} runs = "
                                                 f"{total / n_wemath * 1000:.2f} ms per run")
    if args.authors_dir and args.authors_python:
        authors = authors_per_run(Path(args.authors_dir), args.authors_python, data_dir, 4,
                                  args.repeat)
        if authors:
            out["authors' pandas scripts, one file"] = (
                f"{authors * 1000:.1f} ms per run: views {authors / (total / n_wemath):.0f}x "
                "faster per run (target >= 50x)")
    if args.compare_ref:
        differ, times = compare_with(db, args.compare_ref, args.repeat)
        out[f"views differing from {args.compare_ref}"] = ", ".join(differ) or "none (all equal)"
        slower = {v: t for v, t in times.items() if t[1] > 1.2 * t[0] + 0.005}
        for v, (a, b) in times.items():
            print(f"  all runs {v:36s} {args.compare_ref} {a * 1000:8.1f} ms, now {b * 1000:8.1f} ms")
        out["all-runs views slower than before"] = (", ".join(
            f"{v} {a * 1000:.0f} -> {b * 1000:.0f} ms" for v, (a, b) in slower.items()) or "none")
    return out


if __name__ == "__main__":
    main()
