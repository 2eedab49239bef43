"""`mathprobe store copy`: runs moved between stores (a DuckDB file and a DuckLake)."""
from __future__ import annotations

from typing import Annotated

import typer

from mathprobe.cli.common import DataPath, err, existing

app = typer.Typer(help="Stores: move runs between a DuckDB file and a DuckLake.",
                  no_args_is_help=True)


@app.command("copy")
def store_copy(
    src: Annotated[str, typer.Argument(help="The store to copy from (file or ducklake:...).")],
    dst: Annotated[str, typer.Argument(help="The store to copy into (created if absent).")],
    run_ids: Annotated[list[str] | None, typer.Option("--run-id", help="Only this run "
                                                         "(repeatable); default: every run.")] = None,
    data_path: DataPath = None,
) -> None:
    """Copy runs (responses, verdicts, log-probabilities, probe scores, and the items and
    reference tables their views need) from SRC to DST. Runs DST already has are skipped."""
    from mathprobe.runs import preflight
    from mathprobe.store import open_store
    from mathprobe.store.copy import copy_runs
    from mathprobe.store.location import parse

    existing(src)
    preflight.store_path(dst, data_path)
    out = copy_runs(parse(src), open_store(dst, data_path), run_ids)
    err.print(f"copied {len(out['copied'])} run(s) ({out['responses']} responses) from {src} "
              f"to {dst}" + (f"; skipped {len(out['skipped'])} already there: "
                             f"{', '.join(out['skipped'])}" if out["skipped"] else ""))
