"""Per-run figures on a store of a million responses: every view for one run, `report` for one
run, every WE-MATH figure for all runs against the authors' pandas scripts, and the views of
another version of the SQL (a git ref) compared row for row with this checkout's.

The store is `perf/bigstore.py`'s (about 1,075,000 responses over 612 runs of the three
benchmarks; built once, cached). Targets (issue 14): each view for one run under 20 ms,
`report` for one run under 0.3 s, all WE-MATH figure views for all runs at least 50x faster per
run than the authors' pandas evaluation (github.com/We-Math/We-Math evaluation/
four_dimensional_metrics.py + accuracy.py, re-expressed below as the baseline) on one response
file. A view's time is the median of --repeat runs of `SELECT * ... WHERE run_id = ?` for the
slowest of a few runs of its benchmark, twice: with every row fetched into Python as tuples
(`fetchall`: a view of 40,000 rows spends about 45 ms there alone, whatever the SQL), and
computed whole inside DuckDB (`in duckdb`: every column of every row, hashed; what `compare`
and the reports pay, which read such views into a table or numpy).

WE-MATH's figure views read rows stored per run when the run finished (mathprobe/store/run_data.py;
the cached store is built as the store's writes would leave it) and compute only runs whose
data changed since. They are timed both ways: as stored, and live (a copy of the store with no
stored figure: a run in progress, or a store whose SQL or data just changed), per run and for
all runs; the live all-runs time is also compared with --compare-ref's.

    python perf/views.py [--scale 1.0] [--repeat 5] [--compare-ref main]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from perf import bigstore  # noqa: E402

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


def per_run_views(db: Path, repeat: int, only: list[str] | None = None
                  ) -> list[tuple[str, float, float, int]]:
    """(view, slowest median over the sampled runs in seconds with rows fetched into Python,
    the same computed inside DuckDB, rows) of every per-run view (or of `only`)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = sample_runs(con)
        out = []
        for view, cols in views(con).items():
            if "run_id" not in cols or view in CROSS_RUN or (only and view not in only):
                continue
            worst, worst_db, rows = 0.0, 0.0, 0
            for run_id in runs_for(view, runs):
                sql = f"SELECT * FROM {view} WHERE run_id = ?"
                q = lambda sql=sql, run_id=run_id: con.execute(sql, [run_id]).fetchall()  # noqa: E731
                q_db = lambda sql=sql, run_id=run_id: con.execute(  # noqa: E731
                    f"SELECT count(*), sum(hash(v)) FROM ({sql}) v", [run_id]).fetchall()
                worst = max(worst, timed(q, repeat))
                worst_db = max(worst_db, timed(q_db, repeat))
                rows = max(rows, len(q()))
            out.append((view, worst, worst_db, rows))
        return out
    finally:
        con.close()


def live_copy(db: Path, tmp: Path) -> Path:
    """A copy of the store whose runs have no stored figures (every figure computed live)."""
    live = tmp / "live.duckdb"
    shutil.copy(db, live)
    con = duckdb.connect(str(live))
    try:
        con.execute("UPDATE run_data SET figures_version = NULL")
    finally:
        con.close()
    return live


def whole_views(db: Path, names: list[str], repeat: int, fetch: bool = True) -> dict[str, float]:
    """Median seconds to compute each view for all runs, fully materialised: fetched into
    Python, or (fetch False) every column of every row hashed inside DuckDB (the comparison
    of every view with another SQL version: a view of two million rows spends seconds in
    Python's tuples alone)."""
    con = duckdb.connect(str(db), read_only=True)
    sql = "SELECT * FROM {}" if fetch else "SELECT count(*), sum(hash(v)) FROM {} v"
    try:
        return {v: timed(lambda v=v: con.execute(sql.format(v)).fetchall(), repeat)
                for v in names}
    finally:
        con.close()


def report_per_run(db: Path, repeat: int) -> dict[str, float]:
    """Median seconds of `reports.build` for a run of each benchmark (what `mathprobe report`
    computes, on a read-only open of the store)."""
    from mathprobe import reports
    from mathprobe.store import close_all, open_store

    store = open_store(db, read_only=True)
    try:
        con = store.con
        runs = sample_runs(con)
        return {kind: timed(lambda r=runs[kind][1]: reports.build(store, r), repeat)
                for kind in ("wemath", "conceptmath", "cmmath")}
    finally:
        close_all()


# -- the baseline: the WE-MATH authors' pandas evaluation ------------------------------------------
# Their evaluation/four_dimensional_metrics.py (Table 2) and evaluation/accuracy.py (Table 1), in
# github.com/We-Math/We-Math, re-expressed here step for step (same pandas operations on the same
# result file: parse the answer, split by key, merge the steps of each problem on ID, filter the
# four dimensions, S1-S3 means, leaf and category means over the knowledge nodes); printing their
# table is left out. Timed per result file, the JSON read included, as their scripts do.
def _authors_frame(path: str):
    import pandas as pd

    df = pd.DataFrame(json.loads(Path(path).read_text(encoding="utf-8")))
    ans = df["response"].str.split("Answer").str[-1].str.strip()
    ans = ans.str.replace(r"[>><<:.]", "", regex=True).str.strip()
    df["processed_answer"] = ans.apply(lambda x: x[0] if x and x[0] in "ABCDEFGH" else None)
    df["joker"] = df["processed_answer"] == df["answer"]
    return df


def _authors_steps(df, steps: int):
    import pandas as pd

    parts = {k: df[df["key"] == f"{steps}steps_{k}"].copy()
             for k in [*map(str, range(1, steps + 1)), "multi"]}
    for k, part in parts.items():
        part.columns = [f"{c}_{k}" for c in part.columns]
    merged = parts["1"]
    for k in [*map(str, range(2, steps + 1)), "multi"]:
        merged = pd.merge(merged, parts[k], left_on="ID_1", right_on=f"ID_{k}", how="left")
    return merged


def authors_wemath(path: str, nodes_path: str) -> dict:
    """Tables 1 and 2 of one result file, the authors' way."""
    import pandas as pd

    df = _authors_frame(path)
    m2 = _authors_steps(df[df["key"].str.contains("2steps")], 2)
    m3 = _authors_steps(df[df["key"].str.contains("3steps")], 3)
    counts = {}
    for m, steps in ((m2, 2), (m3, 3)):
        right = [m[f"joker_{i}"] == True for i in range(1, steps + 1)]  # noqa: E712 (theirs:
        wrong_ = [m[f"joker_{i}"] == False for i in range(1, steps + 1)]  # noqa: E712  NaN-aware)
        every, some, none, not_every = right[0], right[0], wrong_[0], wrong_[0]
        for r, w in zip(right[1:], wrong_[1:]):
            every, some, none, not_every = every & r, some | r, none & w, not_every | w
        multi, wrong = m["joker_multi"] == True, m["joker_multi"] == False  # noqa: E712
        for name, rows in {"rm_loose": m[none & multi], "rm_strict": m[not_every & multi],
                           "ig": m[every & wrong], "ik": m[not_every & wrong],
                           "cm_loose": m[some & multi], "cm_strict": m[every & multi]}.items():
            counts[name] = counts.get(name, 0) + len(rows)
    table2 = {k: f"{v / 525:.2%}" for k, v in counts.items()}
    for rule in ("loose", "strict"):
        table2[f"score_{rule}"] = "{:.2%}".format(
            (525 - 0.5 * counts["ig"] - counts[f"rm_{rule}"] - counts["ik"]) / 525)
    nodes = pd.DataFrame(json.loads(Path(nodes_path).read_text(encoding="utf-8")))
    nodes["final_key"] = nodes["full node"].str.split("_").str[-1]
    singles = []
    for m, steps in ((m2, 2), (m3, 3)):
        for i in range(1, steps + 1):
            one = pd.merge(m[[f"joker_{i}", f"knowledge concept_{i}"]],
                           nodes[["final_key", "full node", "root2"]],
                           left_on=f"knowledge concept_{i}", right_on="final_key", how="left")
            singles.append(one.rename(columns={f"joker_{i}": "joker"}))
    one_step = pd.concat(singles, axis=0)
    table1 = {"S1": f"{one_step['joker'].mean():.2%}", "S2": f"{m2['joker_multi'].mean():.2%}",
              "S3": f"{m3['joker_multi'].mean():.2%}"}
    leaves = pd.merge(nodes, one_step.groupby("final_key")["joker"].mean(),
                      left_on="final_key", right_index=True, how="left")
    table1.update(leaves.groupby("root2")["joker"].mean().apply(lambda x: f"{x:.2%}").to_dict())
    return {"table1": table1, "table2": table2}


def authors_per_run(data_dir: Path, runs: int, repeat: int) -> float:
    """Median seconds per response file of the authors' evaluation (both tables)."""
    nodes = str(data_dir / "wemath" / "knowledge_structure_nodes.json")
    with tempfile.TemporaryDirectory() as tmp:
        per = []
        for r in range(runs):
            f = Path(tmp) / f"run{r}.json"
            f.write_text(json.dumps(bigstore.wemath_results(data_dir, r % 4)))
            per.append(timed(lambda f=f: authors_wemath(str(f), nodes), repeat))
    return statistics.median(per)


# -- another version of the SQL, compared row for row --------------------------------------------
# The ref's own code applies the ref's SQL (its files, its order, its comments), run from a copy
# of the ref's tree: a ref whose SQL lies in other files than this checkout's is compared too.
APPLY_REF = """
import json, sys
import duckdb
from mathprobe.store.sql import apply, sql_files
con = duckdb.connect(sys.argv[1])
apply(con, sql_files())
con.execute("DELETE FROM store_meta WHERE key = 'sql_layer'")   # not this checkout's
print(json.dumps([v for (v,) in con.execute(
    "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]))
"""


def apply_ref_sql(db: Path | None, ref: str) -> list[str]:
    """Apply the SQL of git `ref` (its files, applied by its own mathprobe.store.sql, its stored
    figures written out) to `db` (None: a new empty database); returns the views `ref`
    defines."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "ref"
        archive = subprocess.run(["git", "archive", ref], cwd=REPO, capture_output=True,
                                 check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="tar")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run([sys.executable, "-c", APPLY_REF, str(db) if db else ":memory:"],
                              cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"applying {ref}'s SQL failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout)


def fingerprints(db: Path, names: list[str]) -> dict[str, tuple]:
    """(rows, an order-independent hash of every row) of each view's full output."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {v: con.execute(f"SELECT count(*), sum(hash(t)::HUGEINT) FROM {v} t").fetchone()
                for v in names}
    finally:
        con.close()


def compare_with(db: Path, live: Path, ref: str, repeat: int
                 ) -> tuple[list[str], dict[str, tuple[float, float]]]:
    """Views whose full output differs between `ref`'s SQL and this checkout's (with figures
    stored, or all computed live), and the time of each view for all runs under `ref` and under
    this checkout, both with no stored figure (seconds): `ref` runs on a copy of the live store,
    so a view it stores is compared computed, like this checkout's."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old.duckdb"
        shutil.copy(live, old)
        apply_ref_sql(old, ref)
        con = duckdb.connect(str(db), read_only=True)
        names = sorted(set(views(con)) & set(apply_ref_sql(None, ref)))   # the views both define
        con.close()
        want = fingerprints(old, names)
        got, got_live = fingerprints(db, names), fingerprints(live, names)
        differ = [v for v in names if want[v] != got[v]]
        differ += [f"{v} (live)" for v in names if want[v] != got_live[v]]
        t_old = whole_views(old, names, repeat, fetch=False)
        t_new = whole_views(live, names, repeat, fetch=False)
    return differ, {v: (t_old[v], t_new[v]) for v in names}


def main() -> None:
    from mathprobe.registry import resolve_data_dir
    from mathprobe.store import Store

    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--compare-ref", default=None, help="a git ref whose SQL to compare with")
    args = ap.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    db = bigstore.get(data_dir, args.scale)
    Store(db).close()                   # this checkout's views on the cached data
    print(f"store: {bigstore.describe(db)}")
    for name, value in run_all(db, data_dir, args).items():
        print(f"{name}: {value}")


def run_all(db: Path, data_dir: Path, args) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        return _run_all(db, live_copy(db, Path(tmp)), data_dir, args)


def _run_all(db: Path, live: Path, data_dir: Path, args) -> dict[str, object]:
    out: dict[str, object] = {}
    rows = [(f"{view} (one run, {n} rows)", t, t_db, 0.020)
            for view, t, t_db, n in per_run_views(db, args.repeat)]
    rows += [(f"{view} live (one run, {n} rows)", t, t_db, 0.020)
             for view, t, t_db, n in per_run_views(live, args.repeat, WEMATH_FIGURES)]
    rows += [(f"report, one {kind} run", t, None, 0.3)
             for kind, t in report_per_run(db, args.repeat).items()]
    con = duckdb.connect(str(db), read_only=True)
    (n_wemath,), = con.execute("SELECT count(*) FROM runs WHERE benchmark = 'wemath'").fetchall()
    con.close()
    whole = whole_views(db, WEMATH_FIGURES, args.repeat)
    per_run = sum(whole.values()) / n_wemath
    whole_live = whole_views(live, WEMATH_FIGURES, args.repeat)
    per_run_live = sum(whole_live.values()) / n_wemath
    authors = authors_per_run(data_dir, 4, args.repeat)
    rows.append((f"all WE-MATH figure views, all {n_wemath} runs, per run", per_run, None,
                 authors / 50))
    rows.append(("  the same, no figure stored (all live), per run", per_run_live, None, None))
    rows.append(("WE-MATH authors' pandas evaluation, one file", authors, None, None))
    print(f"{'view':<62} {'fetchall':>9} {'in duckdb':>9} {'target':>9}  ok (fetchall / in duckdb)")
    for name, t, t_db, target in rows:
        ok = "" if target is None else ("yes" if t < target else "NO")
        if target is not None and t_db is not None:
            ok += " / " + ("yes" if t_db < target else "NO")
        print(f"{name:<62} {t * 1000:>9.2f} {'' if t_db is None else f'{t_db * 1000:.2f}':>9} "
              f"{'' if target is None else f'< {target * 1000:.1f}':>9}  {ok}")
    targets = [r for r in rows if r[3] is not None]
    misses = [name for name, t, _, target in targets if t >= target]
    misses_db = [name for name, t, t_db, target in targets if (t if t_db is None else t_db) >= target]
    out["rows over target (fetchall)"] = f"{len(misses)} of {len(targets)}"
    out["rows over target (in duckdb)"] = (f"{len(misses_db)} of {len(targets)}"
                                           + (": " + ", ".join(misses_db) if misses_db else ""))
    out["views faster than the authors' pandas, per run"] = (
        f"{authors / per_run:.0f}x (target >= 50x); with no figure stored {authors / per_run_live:.0f}x")
    if args.compare_ref:
        differ, times = compare_with(db, live, args.compare_ref, args.repeat)
        out[f"views differing from {args.compare_ref}"] = ", ".join(differ) or "none (all equal)"
        slower = {v: t for v, t in times.items() if t[1] > 1.2 * t[0] + 0.005}
        for v, (a, b) in times.items():
            print(f"  all runs, in duckdb {v:36s} {args.compare_ref} {a * 1000:8.1f} ms, "
                  f"now {b * 1000:8.1f} ms (both live)")
        out["all-runs views slower than before"] = (", ".join(
            f"{v} {a * 1000:.0f} -> {b * 1000:.0f} ms" for v, (a, b) in slower.items()) or "none")
    return out


if __name__ == "__main__":
    main()
