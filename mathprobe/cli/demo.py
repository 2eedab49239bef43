"""`mathprobe demo`: each benchmark's demo run on embedded defaults (the chance baseline),
printed as the paper's tables, with the queries to look at it by hand."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mathprobe.cli.common import DataDir, Db, emit, invocation, load_flow, progress_bar

DEMO_DB = "out/demo.duckdb"


def demo(
    db: Db = DEMO_DB,
    data_dir: DataDir = None,
) -> None:
    """The main job on embedded defaults: each benchmark's demo run (the chance baseline on all
    of WE-MATH testmini), printed as the paper's tables."""
    from mathprobe import registry
    from mathprobe.runs import preflight

    if db == DEMO_DB:                          # the demo's own folder; a --db given must exist
        Path(DEMO_DB).parent.mkdir(exist_ok=True)
    preflight.store_path(db)
    for bench in registry.all_benchmarks():
        if bench.demo is not None:
            preflight.data(bench, data_dir)

    eval_flow = load_flow("eval", "eval_flow")
    queries = []
    for bench in registry.all_benchmarks():
        if bench.demo is None:
            continue
        run_id = f"demo-{bench.name}-{bench.demo['model'].replace(':', '-')}"
        with progress_bar():
            report = eval_flow(benchmark=bench.name, model=bench.demo["model"],
                               setting=bench.demo.get("setting"), run_id=run_id, db=str(db),
                               data_dir=str(data_dir) if data_dir else None)
        emit(report, False)
        if bench.demo.get("query"):
            queries.append(bench.demo["query"].format(run_id=run_id))
    Console().print(f"\nStored in {db}. Query it by hand, e.g.:\n"
                    + "\n".join(f'  {invocation()} sql --db {db} "{q}"' for q in queries),
                    soft_wrap=True)
