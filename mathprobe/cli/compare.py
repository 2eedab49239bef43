"""`mathprobe compare`: the papers' multi-model tables from stored runs, every figure with its
bootstrap interval, each run against the baseline (the first, or --baseline; also as JSON, CSV
or Parquet), and the benchmark's sections against it (e.g. ConceptMath's Table 5, the targeted
improvement)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from mathprobe.cli.common import err, open_existing, reads


def compare(
    db: Annotated[str, typer.Option("--db", help="DuckDB file, or a DuckLake store "
                                    "(ducklake:sqlite:FILE, 'ducklake:postgres:...').")],
    run_ids: Annotated[list[str] | None, typer.Argument(
        help="Runs to compare; the first is the baseline of the differences.",
        show_default=False)] = None,
    baseline: Annotated[str | None, typer.Option(
        "--baseline", help="The run the others are compared with (default: the first RUN); "
        "for ConceptMath also the 'before' of the targeted improvement (paper Table 5).")
    ] = None,
    benchmark: Annotated[str | None, typer.Option(
        "--benchmark", help="Compare every run of this benchmark (after the RUNs named).")] = None,
    grader: Annotated[str | None, typer.Option(
        "--grader", help="Grader of every run (default: each run's report grader).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print per run and figure: value, "
                                          "ci_low, ci_high, n (and the differences).")] = False,
    csv_file: Annotated[Path | None, typer.Option("--csv", help="Also write every figure and "
                                                     "difference to this CSV file.")] = None,
    parquet_file: Annotated[Path | None, typer.Option(
        "--parquet", help="Also write every figure and difference to this Parquet file (the "
        "CSV's rows and columns, typed).")] = None,
    resamples: Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 20240611,
) -> None:
    """The papers' multi-model tables from stored runs: every figure with its 95% bootstrap
    interval and n, and each run against the first with a paired test."""
    from mathprobe.reports import compare_render
    from mathprobe.reports.compare import compare as compare_runs
    from mathprobe.runs import output_paths, preflight

    preflight.check_counts(resamples=resamples, seed=seed)
    for flag, path in (("--csv", csv_file), ("--parquet", parquet_file)):
        if path is not None:
            output_paths.output_file(flag, path, reads(db))
    if benchmark is not None:
        preflight.benchmark(benchmark)
    run_ids = list(run_ids or [])
    if baseline is not None:
        run_ids = [baseline] + [r for r in run_ids if r != baseline]
    result = compare_runs(open_existing(db), run_ids, benchmark=benchmark, grader=grader,
                          resamples=resamples, seed=seed)
    if csv_file is not None:
        n = compare_render.write_csv(result, csv_file)
        err.print(f"wrote {n} rows to {csv_file}")
    if parquet_file is not None:
        n = compare_render.write_parquet(result, parquet_file)
        err.print(f"wrote {n} rows to {parquet_file}")
    if as_json:
        sys.stdout.write(json.dumps(compare_render.to_json(result), indent=2, default=str) + "\n")
    else:
        console = Console()
        console.print(compare_render.render(result, console.width))
