"""What the shared store costs: DuckLake against a DuckDB file.

1. Write throughput: 4 processes writing responses at once into one lake (a SQLite catalog,
   then a PostgreSQL one) against 1 process writing the same number into a file. Every writer
   goes through the real path (`Store.writer()`: the single writer thread, batches of 64, each
   batch a transaction; on the lake the commit token and conflict retries).
2. Reading: the same 100 WE-MATH runs (imported through the real `import` path into a file,
   then `mathprobe store copy` into each lake) and every WE-MATH view computed over each store,
   fully materialised; medians of --repeat, ratios lake / file.

PostgreSQL is started for the run (deploy/postgres.sh, Debian's package: `make postgres`).

    python perf/lake.py [--rows 2000] [--runs 100] [--repeat 5] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mathprobe.items import Completion  # noqa: E402
from mathprobe.ports import free_port  # noqa: E402

BATCH = 64
VIEWS = ["wemath_item_verdicts", "wemath_problem_verdicts", "wemath_four_dimensional",
         "wemath_step_accuracy", "wemath_concept_accuracy", "wemath_category_accuracy"]


def _writer(db: str, data_path: str | None, run_id: str, rows: int, ready, go, out) -> None:
    from mathprobe.store import RunSpec, open_store

    store = open_store(db, data_path)
    store.start_run(RunSpec(run_id, "bench", "baseline:random", "baseline", "plain", {}), rows)
    writer = store.writer()
    ready.wait()
    go.wait()
    started = time.perf_counter()
    futures = [writer.submit(run_id, [(f"item{i}", f"h{i}", Completion(
        text=f"<Answer>: <<{'ABCD'[i % 4]}>>", latency_s=0.1, input_tokens=50, output_tokens=9,
        cost_usd=0.0)) for i in range(k, min(k + BATCH, rows))]) for k in range(0, rows, BATCH)]
    for f in futures:
        f.result()
    out.put(time.perf_counter() - started)
    store.close()


def write_throughput(db: str, data_path: str | None, writers: int, rows: int) -> float:
    """Responses per second of `writers` processes writing `rows` each at once."""
    ctx = mp.get_context("spawn")
    ready, go, out = ctx.Barrier(writers + 1), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(db, data_path, f"w{i}", rows, ready, go, out))
             for i in range(writers)]
    for p in procs:
        p.start()
    ready.wait()
    started = time.perf_counter()
    go.set()
    for p in procs:
        p.join()
        assert p.exitcode == 0, f"writer failed ({p.exitcode})"
    wall = time.perf_counter() - started
    from mathprobe.store import open_store
    store = open_store(db)
    (n, distinct), = store.query("SELECT count(*), count(DISTINCT (run_id, item_id)) FROM responses")
    store.close()
    assert n == distinct == writers * rows, (n, distinct)
    return writers * rows / wall


def view_times(db: str, repeat: int) -> dict[str, float]:
    from mathprobe.store import open_store

    store = open_store(db)
    times: dict[str, list[float]] = {v: [] for v in VIEWS}
    for _ in range(repeat):
        for view in VIEWS:
            t = time.perf_counter()
            assert store.query(f"SELECT * FROM {view}"), view
            times[view].append(time.perf_counter() - t)
    store.close()
    out = {v: statistics.median(ts) for v, ts in times.items()}
    out["all WE-MATH views"] = statistics.median(
        [sum(times[v][i] for v in VIEWS) for i in range(repeat)])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2000, help="responses per writer")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()

    from wemath_views import fake_results

    from mathprobe import runs
    from mathprobe.benchmarks import wemath
    from mathprobe.registry import resolve_data_dir
    from mathprobe.store import open_store
    from mathprobe.store.copy import copy_runs
    from mathprobe.store.location import parse

    data_dir = resolve_data_dir(args.data_dir)
    pg_dir, port = tempfile.mkdtemp(prefix="mathprobe-pg-"), free_port()
    postgres = str(REPO / "deploy" / "postgres.sh")
    subprocess.run([postgres, "start", pg_dir, str(port), "writes", "views"], check=True)
    pg = "ducklake:postgres:dbname={} host=127.0.0.1 port=" + str(port) + " user=postgres"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t = Path(tmp)
            print(f"1. write throughput, {args.rows} responses per writer, batches of {BATCH}")
            file_rate = write_throughput(str(t / "w.duckdb"), None, 1, 4 * args.rows)
            print(f"  1 writer  -> DuckDB file           {file_rate:9,.0f} responses/s")
            for name, db, dp in (("SQLite", f"ducklake:sqlite:{t / 'w.sqlite'}", None),
                                 ("PostgreSQL", pg.format("writes"), str(t / "w-pg"))):
                rate = write_throughput(db, dp, 4, args.rows)
                print(f"  4 writers -> lake, {name:10s} catalog {rate:9,.0f} responses/s "
                      f"({rate / file_rate:.2f} x the file)")

            print(f"2. every WE-MATH view over {args.runs} runs (median of {args.repeat})")
            rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
            file_db = str(t / "views.duckdb")
            store = open_store(file_db)
            for r in range(args.runs):
                f = t / f"run{r}.json"
                f.write_text(json.dumps(fake_results(rows, r)))
                runs.import_official(store, wemath.benchmark, data_dir, f, f"run{r:03d}")
            store.close()
            stores = {"file": file_db, "lake SQLite": f"ducklake:sqlite:{t / 'v.sqlite'}",
                      "lake PostgreSQL": pg.format("views")}
            for name in ("lake SQLite", "lake PostgreSQL"):
                dst = open_store(stores[name], str(t / "v-pg") if "Postgre" in name else None)
                copy_runs(parse(file_db), dst)
                dst.close()
            times = {name: view_times(db, args.repeat) for name, db in stores.items()}
            head = f"  {'view':28s} {'file ms':>9s}" + "".join(
                f" {n + ' ms':>18s} {'ratio':>6s}" for n in stores if n != "file")
            print(head)
            for view in [*VIEWS, "all WE-MATH views"]:
                base = times["file"][view]
                line = f"  {view:28s} {base * 1000:9.1f}"
                for n in stores:
                    if n != "file":
                        line += f" {times[n][view] * 1000:18.1f} {times[n][view] / base:6.2f}"
                print(line)
    finally:
        subprocess.run([postgres, "stop", pg_dir])


if __name__ == "__main__":
    main()
