"""`mathprobe errors export-sheet` and `errors import-sheet` (registered on the `errors` group by
mathprobe.cli.errors): a run's wrong answers to people as a labelling sheet, and their labels
back as a labeller of their own, with how far they agree with the run's other labellers."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from mathprobe.cli.common import DataDir, Db, ExistingDb, err, reads


def export_sheet(
    run_id: Annotated[str, typer.Argument(
        metavar="RUN", help="The stored run whose wrong answers to put on the sheet.")],
    db: ExistingDb,
    out: Annotated[Path, typer.Option("--out", help="The CSV file to write.")],
    sample: Annotated[int, typer.Option(
        "--sample", help="About N wrong answers: a seeded stratified sample, the same answers "
        "`mathprobe errors --sample N` labels.")] = 100,
    grader: Annotated[str | None, typer.Option(
        "--grader", help="Whose wrong answers (default: the run's report grader).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write a labelling sheet of RUN's wrong answers (CSV: run, item, its answer's id, the
    question as the model saw it, its image's path, the reference answer, the model's whole
    response, the error types to choose from, and empty error_type / first_error / note
    columns for people to fill in); bring it back with `mathprobe errors import-sheet`."""
    from mathprobe import registry
    from mathprobe.cli.common import open_existing
    from mathprobe.reports.selection import check_grader, default_grader, find_run
    from mathprobe.runs import label_sheets, labelling, output_paths, preflight

    preflight.check_counts(sample=sample)
    output_paths.output_file("--out", out, reads(db, data_dir))
    store = open_existing(db)
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    labelling.taxonomy_of(bench)
    if grader is not None:
        check_grader(store, {run_id: (run["benchmark"], run["setting"])}, grader)
    items = labelling.items_of(store, bench, run_id,
                               bench.load(preflight.data(bench, data_dir)).by_id())
    chosen = grader or default_grader(store, run_id, bench)
    got = label_sheets.write_sheet(store, bench, items, {**run, "run_id": run_id}, chosen,
                                   sample, out)
    err.print(f"wrote {out}: {got['rows']} of the {got['wrong']} answers {chosen} calls wrong "
              f"(a seeded stratified sample, --sample {sample}); fill in its error_type column "
              f"and bring it back with: mathprobe errors import-sheet {out} --labeler NAME "
              f"--db {db}", soft_wrap=True, highlight=False)


def import_sheet(
    file: Annotated[Path, typer.Argument(help="A filled labelling sheet (.csv, .xlsx, .tsv).")],
    labeler: Annotated[str, typer.Option("--labeler", help="Whose labels these are (a name of "
                                         "their own, e.g. people:anna).")],
    db: Db,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Bring a filled labelling sheet back: its error types become labeller NAME's (people's)
    labels, beside the models' (never replacing them); every row is checked before anything is
    stored (a bad row: one error naming the file, row and field). Then shows how far NAME
    agrees with each other labeller of the run: Cohen's kappa per type, the confusion table."""
    from mathprobe.errors import MathprobeError
    from mathprobe.reports import error_render
    from mathprobe.reports.error_analysis import pair_agreements
    from mathprobe.runs import label_sheets, preflight
    from mathprobe.store import open_store

    if not labeler.strip():
        raise MathprobeError("--labeler: give the people's labels a name")
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file" if not file.exists()
                             else f"{file}: not a file")
    preflight.store_path(db)
    store = open_store(db)
    got = label_sheets.read_sheet(store, file, labeler.strip())
    pairs = [p for run_id in got["runs"] for p in pair_agreements(store, run_id)
             if labeler.strip() in (p["labeler_a"], p["labeler_b"])]
    if as_json:
        sys.stdout.write(json.dumps({**got, "agreement": pairs}, indent=2, default=str) + "\n")
        return
    for run_id, n in got["runs"].items():
        err.print(f"imported {file}: {n['labelled']} labels of run {run_id} as {labeler}"
                  + (f" ({n['blank']} rows left blank: not labelled)" if n["blank"] else ""),
                  soft_wrap=True, highlight=False)
    console = Console()
    for p in pairs:
        for part in error_render.agreement(p):
            console.print(part)
