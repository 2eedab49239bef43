"""`mathprobe import`: responses produced elsewhere (the benchmark authors' result files,
VLMEvalKit's, lmms-eval's) loaded into a store, graded, and every view filled."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mathprobe.cli.common import Benchmark, DataDir, DataPath, Db, RunId, err
from mathprobe.errors import MathprobeError


def import_(
    file: Annotated[Path, typer.Argument(help="Response file: the authors' result format, or "
                                         "another toolkit's (see --format).")],
    benchmark: Benchmark,
    run_id: RunId,
    db: Db,
    fmt: Annotated[str, typer.Option("--format", help="official (the benchmark authors' result "
                                     "format); WE-MATH also vlmevalkit (VLMEvalKit's "
                                     "{model}_WeMath[_{judge}].xlsx/.tsv/.csv) and lmms-eval "
                                     "(its *_samples_<task>.jsonl).")] = "official",
    data_dir: DataDir = None,
    data_path: DataPath = None,
) -> None:
    """Load responses produced elsewhere, grade them, and fill every view. Rows that cannot be
    imported are counted and listed; problems the local data lacks are taken from the file
    where it defines them (CMMaTH authors' records)."""
    from mathprobe import registry
    from mathprobe.runs import import_results, preflight
    from mathprobe.runs.importing import read_import
    from mathprobe.store import open_store

    preflight.check_run_id(run_id)
    bench = preflight.benchmark(benchmark)
    if fmt not in bench.result_formats():
        raise MathprobeError(f"--format {fmt!r}: {bench.title} results are imported from "
                             f"{', '.join(sorted(bench.result_formats()))}")
    preflight.store_path(db, data_path)
    folder = registry.resolve_data_dir(data_dir)
    read = read_import(bench, folder, file, fmt)   # the whole file, before the store is touched
    store = open_store(db, data_path)
    counts = import_results(store, bench, folder, file, run_id, fmt, read)
    err.print(import_summary(file, run_id, counts), soft_wrap=True, highlight=False)


def import_summary(file: Path, run_id: str, counts: dict, shown: int = 20) -> str:
    """What an import did, in a few lines: rows stored, those the file defined itself, the
    rows left out (each with its reason, the first `shown` of them)."""
    lines = [f"imported {file} into run {run_id}: {counts['rows']} rows ({counts['new']} new "
             f"responses, {counts['already_stored']} already stored, {counts['missing']} without "
             f"a response" + (f", {counts['failed']} failed calls" if counts.get("failed") else "")
             + ")"]
    if counts.get("from_file"):
        lines.append(f"{counts['from_file']} problem(s) not in the local data were taken from "
                     "the file itself")
    for rows, what in ((counts.get("skipped") or [], "left out"),
                       (counts.get("flagged") or [], "kept but flagged")):
        if rows:
            lines.append(f"{len(rows)} row(s) {what}:")
            lines += [f"  {s.line()}" for s in rows[:shown]]
            if len(rows) > shown:
                lines.append(f"  ... and {len(rows) - shown} more (all counted in the run card)")
    return "\n".join(lines)

