"""The `sweep` flow (deployment `eval/sweep`): an evaluation grid, models x benchmarks x
settings, run as one `eval/full` child flow run per cell.

Each cell starts with Prefect's `run_deployment`, so whichever workers of the pool are free (on
any machine) pick the cells up; the parent only creates them, waits, logs each child's state as
it changes, and publishes a table of every cell's figures read from the views. Cells write the
same shared store at once, so `db` must be a DuckLake catalog. A cell's run id is
`<sweep_id>-<benchmark>-<model>-<setting>`: running the same sweep again resumes every cell
(each child asks only what its run lacks), and a retried parent does not start a cell twice
(the idempotency key names the parent run).

The grid comes from parameters or a TOML file (`grid`), e.g.

    models = ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"]
    benchmarks = ["wemath", "conceptmath"]
    settings = ["plain"]        # optional: where a benchmark has the setting; else its default
    [params]                    # optional: passed to every cell (limit, concurrency, ...)
    limit = 200
"""
from __future__ import annotations

import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_table_artifact
from prefect.client.orchestration import get_client
from prefect.deployments import run_deployment

from mathprobe import registry
from mathprobe.errors import MathprobeError

# flow runs end without waiting on a heartbeat
from mathprobe.flows import _prefect_engine  # noqa: F401
from mathprobe.store.location import parse
from mathprobe.tasks.run_log import current_flow_run_id

CHILD_DEPLOYMENT = "eval/full"
# eval/full parameters a grid may set for every cell
CELL_PARAMS = ("limit", "concurrency", "retry_failed", "max_cost", "temperature", "max_tokens",
               "request_timeout", "triton_url", "judge", "backend_options", "batch", "samples",
               "seed")


@dataclass(frozen=True)
class Cell:
    benchmark: str
    model: str
    setting: str
    run_id: str


def cells_of(models: list[str], benchmarks: list[str], settings: list[str] | None,
             sweep_id: str) -> list[Cell]:
    """The grid's cells; a setting applies to the benchmarks that have it (none given: each
    benchmark's default). A setting no benchmark has is an error, not a silent gap."""
    from mathprobe.flows.eval import default_run_id

    if not models or not benchmarks:
        raise MathprobeError("a sweep needs at least one model and one benchmark")
    from mathprobe.runs.preflight import check_run_id

    check_run_id(sweep_id, "sweep_id")          # it begins every cell's run id
    cells = []
    for name in benchmarks:
        bench = registry.get(name)
        chosen = [s for s in settings if s in bench.settings] if settings else [bench.default_setting]
        for model in models:
            for setting in chosen:
                cells.append(Cell(name, model, setting,
                                  f"{sweep_id}-{default_run_id(name, model, setting)}"))
    unused = set(settings or ()) - {c.setting for c in cells}
    if unused:
        raise MathprobeError(f"settings {sorted(unused)}: none of {benchmarks} has them")
    return cells


def read_grid(path: str | Path) -> dict[str, Any]:
    """A grid file: models, benchmarks, optional settings and [params]."""
    try:
        grid = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise MathprobeError(f"grid file {path}: {exc}") from exc
    unknown = set(grid) - {"models", "benchmarks", "settings", "params"}
    if unknown:
        raise MathprobeError(f"grid file {path}: unknown keys {sorted(unknown)} (models, "
                             "benchmarks, settings, [params])")
    bad = set(grid.get("params", {})) - set(CELL_PARAMS)
    if bad:
        raise MathprobeError(f"grid file {path}: [params] {sorted(bad)} are not eval parameters "
                             f"({', '.join(CELL_PARAMS)})")
    return grid


def _wait(runs: dict[str, Any], poll_s: float) -> dict[str, Any]:
    """Poll the children until each is final; log every change of state."""
    logger = get_run_logger()
    seen: dict[str, str] = {}
    with get_client(sync_client=True) as client:
        while True:
            for run_id, fr in list(runs.items()):
                if fr.state is None or not fr.state.is_final():
                    fr = runs[run_id] = client.read_flow_run(fr.id)
                name = fr.state.name if fr.state else "Pending"
                if seen.get(run_id) != name:
                    seen[run_id] = name
                    logger.info("cell %s: %s (flow run %s)", run_id, name, fr.name)
            if all(fr.state is not None and fr.state.is_final() for fr in runs.values()):
                return runs
            time.sleep(poll_s)


# Named "eval" like the flow of eval/full, so the deployment is `eval/sweep` (Prefect names a
# deployment <flow name>/<deployment name>) and the UI lists both under one flow; the runs of
# a sweep parent are told apart by their deployment and their `sweep_id` parameter.
@flow(name="eval", flow_run_name="sweep-{sweep_id}", log_prints=True)
def sweep_flow(models: list[str] | None = None, benchmarks: list[str] | None = None,
               settings: list[str] | None = None, grid: str | None = None,
               sweep_id: str = "sweep", db: str = "ducklake:sqlite:mathprobe-lake.sqlite",
               data_path: str | None = None, data_dir: str | None = None,
               limit: int | None = None, concurrency: int | None = None,
               params: dict[str, Any] | None = None, poll_s: float = 2.0) -> dict[str, str]:
    """Run every cell of the grid as an `eval/full` child run and wait for all of them.

    `grid` (a TOML file on the worker) gives models / benchmarks / settings / [params] where the
    parameters do not. Returns run id -> the child's final state; fails if any child failed.
    """
    spec = read_grid(grid) if grid else {}
    cells = cells_of(models or spec.get("models", []), benchmarks or spec.get("benchmarks", []),
                     settings or spec.get("settings"), sweep_id)
    if not parse(db, data_path).is_lake:
        raise MathprobeError(f"--db {db}: a sweep's cells write at the same time from several "
                             "processes; use a DuckLake store (ducklake:sqlite:FILE or "
                             "ducklake:postgres:...), not a DuckDB file")
    common = {**spec.get("params", {}), **(params or {})}
    common.update({k: v for k, v in (("limit", limit), ("concurrency", concurrency)) if v is not None})
    parent = current_flow_run_id()
    logger = get_run_logger()
    logger.info("sweep %s: %d cells into %s", sweep_id, len(cells), db)
    runs: dict[str, Any] = {}          # run_id -> its child flow run (a FlowRun)
    for cell in cells:
        parameters = {"benchmark": cell.benchmark, "model": cell.model, "setting": cell.setting,
                      "run_id": cell.run_id, "db": db, "data_path": data_path,
                      "data_dir": data_dir, **common}
        runs[cell.run_id] = run_deployment(
            CHILD_DEPLOYMENT, parameters=parameters, timeout=0, flow_run_name=cell.run_id,
            idempotency_key=f"{parent}:{cell.run_id}")
    runs = _wait(runs, poll_s)
    states = {run_id: fr.state.name for run_id, fr in runs.items()}
    publish_table(db, data_path, cells, states, sweep_id)
    # by the state's type: an eval run's Completed state is named after its headline figure
    failed = {r: states[r] for r, fr in runs.items() if not fr.state.is_completed()}
    if failed:
        raise MathprobeError(f"sweep {sweep_id}: {len(failed)} of {len(cells)} cells did not "
                             f"complete: {failed}")
    return states


def publish_table(db: str, data_path: str | None, cells: list[Cell], states: dict[str, str],
                  sweep_id: str) -> None:
    """The sweep's table artifact: every cell's figures; then the cells compared."""
    from mathprobe.reports.sweep import cell_rows
    from mathprobe.store import open_store

    rows = cell_rows(open_store(db, data_path),
                     [(c.run_id, c.benchmark, c.model, c.setting, states[c.run_id]) for c in cells])
    key = "".join(ch if ch.isalnum() else "-" for ch in f"sweep-{sweep_id}".lower())[:100]
    create_table_artifact(key=key, table=rows,
                          description=f"mathprobe sweep {sweep_id}: each cell's figures")
    publish_comparison(db, data_path, cells, sweep_id, key)


def publish_comparison(db: str, data_path: str | None, cells: list[Cell], sweep_id: str,
                       key: str) -> None:
    """The cells side by side (`mathprobe compare`): a Markdown artifact `<key>-compare`."""
    from prefect.artifacts import create_markdown_artifact

    from mathprobe.reports import compare, markdown
    from mathprobe.store import open_store

    store = open_store(db, data_path)
    ids = [r for (r,) in store.query("SELECT run_id FROM runs WHERE list_contains(?, run_id)",
                                     [[c.run_id for c in cells]])]
    if not ids:
        return
    ordered = [c.run_id for c in cells if c.run_id in ids]
    text = markdown.comparison_markdown(
        compare.compare(store, ordered), f"Sweep {sweep_id}: the cells compared",
        html_hint=f"mathprobe report --db '{db}' --html {sweep_id}.html --runs "
                  + ",".join(ordered))
    create_markdown_artifact(key=f"{key}-compare", markdown=text,
                             description=f"mathprobe sweep {sweep_id}: the cells compared, "
                                         "with intervals and paired tests")
