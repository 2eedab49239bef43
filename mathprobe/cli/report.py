"""`mathprobe report`: the paper-style tables of a stored run, or the self-contained HTML report
of one run or several (`--html FILE [--runs A,B,...] [--figures DIR]`)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from mathprobe.cli.common import (
    DataDir,
    ExistingDb,
    emit,
    err,
    existing,
    open_existing,
    reads,
)
from mathprobe.errors import MathprobeError


def report(
    db: ExistingDb,
    run_id: Annotated[str | None, typer.Option("--run-id", help="The run to report.")] = None,
    grader: Annotated[str | None, typer.Option("--grader", help="Report the verdicts of this "
                                                  "grader (default: the benchmark's first, or "
                                                  "a judged run's cascade); a name the run "
                                                  "lacks is refused with those it has.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write a self-contained HTML report (plots, intervals, glossary, item "
        "browser) to this file.")] = None,
    runs: Annotated[str | None, typer.Option(
        "--runs", help="With --html: the runs to compare, A,B,... (the first is the "
        "baseline).")] = None,
    figures: Annotated[Path | None, typer.Option(
        "--figures", help="With --html: also write each plot as PNG and SVG here.")] = None,
    data_dir: DataDir = None,
) -> None:
    """Print the paper-style tables of a stored run, or write the HTML report of one run or
    several (--html FILE [--runs A,B,...])."""
    from mathprobe import reports

    existing(db)
    if html is not None:
        write_html(db, run_id, runs, html, grader=grader, figures=figures, data_dir=data_dir)
        return
    if runs or figures:
        raise MathprobeError("--runs and --figures go with --html FILE")
    if run_id is None:
        raise MathprobeError("name the run: --run-id ID (or --html FILE --runs A,B,...)")
    store = open_existing(db)
    if store.stale_views:
        err.print(Text(f"note: {db} holds views of an older mathprobe and cannot be written "
                       "now; the figures come from those views", style="yellow"), soft_wrap=True)
    emit(reports.build(store, run_id, grader), as_json)


def write_html(db: str, run_id: str | None, runs: str | None, html: Path, *,
               grader: str | None, figures: Path | None, data_dir: Path | None) -> None:
    """`report --html`: the report of --run-id or of --runs A,B,... (the first the baseline)."""
    from mathprobe import extras
    from mathprobe.runs import output_paths

    extras.require("html", "--html")
    owned = reads(db, data_dir)
    output_paths.output_file("--html", html, owned)          # before any work, not after it
    if figures is not None:
        output_paths.output_dir("--figures", figures, owned)
    ids = [r.strip() for r in (runs or "").split(",") if r.strip()] + ([run_id] if run_id else [])
    if not ids:
        raise MathprobeError("--html needs --run-id ID or --runs A,B,...")
    store = open_existing(db)
    if grader is not None:           # the runs and the grader, before matplotlib is imported
        from mathprobe.reports.summary import check_grader, find_run

        found = {r: find_run(store, r) for r in dict.fromkeys(ids)}
        check_grader(store, {r: (f["benchmark"], f["setting"]) for r, f in found.items()},
                     grader)
    from mathprobe.reports import html as html_report

    try:
        info = html_report.write(store, list(dict.fromkeys(ids)), html, grader=grader,
                                 data_dir=data_dir, figures_dir=figures)
    except OSError as exc:                  # the disk filled, the folder went away meanwhile
        raise MathprobeError(f"--html {html}: could not write it ({exc.strerror or exc})") \
            from None
    err.print(f"wrote {info['path']} ({info['bytes'] / 1e6:.1f} MB: {info['runs']} run(s), "
              f"{info['plots']} plots, {info['items']} answers in the item browser"
              + (f"; left out of it: {', '.join(info['items_left_out'])}"
                 if info["items_left_out"] else "")
              + (f"; {len(info['figure_files'])} figure files in {figures}" if figures else "")
              + f") in {info['seconds']:.1f} s")
