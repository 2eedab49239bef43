"""`mathprobe select-data`: training data for a run's weakest concepts, from a corpus, without
contaminating the benchmark (ConceptMath's targeted improvement, paper Sec. 2.4;
docs/targeted-improvement.md). Everything is checked before any work: the run, the extra, the
output path against everything the command reads (the store, the data, the corpus, the general
set, the labelled questions)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from mathprobe.cli.common import DataDir, err, existing, reads
from mathprobe.errors import MathprobeError


def select_data(
    db: Annotated[str, typer.Option("--db", help="The store holding the run; the selection is "
                                    "recorded there (table conceptmath_selections).")],
    run: Annotated[str, typer.Option("--run", help="The run whose weakest concepts to serve.")],
    corpus: Annotated[list[str], typer.Option(
        "--corpus", help="JSON lines or Parquet: files, globs, or URLs DuckDB reads (s3://, "
        "https://: the lake extra); repeat for more.")],
    out: Annotated[Path, typer.Option("--out", help="The chat-format JSONL file to write.")],
    weakest: Annotated[int, typer.Option("--weakest", help="How many weakest concepts per "
                                         "system (the paper's 10).")] = 10,
    per_concept: Annotated[int, typer.Option("--per-concept", help="Documents per concept at "
                                             "most (the paper's about 50).")] = 50,
    text_field: Annotated[str, typer.Option("--text-field", help="The corpus field holding "
                                            "the text.")] = "text",
    id_field: Annotated[str | None, typer.Option(
        "--id-field", help="The corpus field holding a document's id (default: <file>:<row>)."
    )] = None,
    mix: Annotated[list[str] | None, typer.Option(
        "--mix", help="A general set (JSON lines: messages, or query/response ...) to mix in, "
        "as the paper mixes MetaMathQA.")] = None,
    mix_ratio: Annotated[float, typer.Option(
        "--mix-ratio", help="General-set rows per selected document.")] = 1.0,
    train: Annotated[Path | None, typer.Option(
        "--train", help="Extra labelled questions for the classifier (JSON lines: system, "
        "concept, question), as the paper's 10 per concept.")] = None,
    grader: Annotated[str | None, typer.Option(
        "--grader", help="The grader whose verdicts rank the concepts (default: the run's).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the general set's sample.")] = 0,
    data_dir: DataDir = None,
) -> None:
    """Select concept-specific training data for a run's weakest concepts from a corpus: a
    classifier trained on the benchmark's questions picks the best documents per weak concept,
    near-duplicates and every document overlapping a benchmark question are removed; writes
    chat-format JSONL and records the selection in the store."""
    from mathprobe import extras, registry
    from mathprobe.contract import SelectOptions
    from mathprobe.runs import output_paths, preflight

    preflight.check_counts(weakest=weakest, per_concept=per_concept, mix_ratio=mix_ratio,
                           seed=seed)
    extras.require("select", "select-data")
    existing(db)
    local = [Path(p) for p in [*corpus, *(mix or [])] if "://" not in p]
    output_paths.output_file("--out", out, reads(db, data_dir, *local, train))
    from mathprobe.reports.selection import check_grader, default_grader, find_run
    from mathprobe.store import open_store

    store = open_store(db)
    found = find_run(store, run)
    bench = registry.get(found["benchmark"])
    if not bench.has_select_data:
        raise MathprobeError(f"--run {run}: a {bench.title} run; its benchmark offers no "
                             "concept-specific data selection")
    if grader is not None:
        check_grader(store, {run: (found["benchmark"], found["setting"])}, grader)
    options = SelectOptions(run, grader or default_grader(store, run, bench), tuple(corpus),
                            out, text_field, id_field, weakest, per_concept, tuple(mix or ()),
                            mix_ratio, seed, train=train)
    path = preflight.data(bench, data_dir)
    with _Progress() as progress:
        lines = bench.select_data(store, path, options, progress)
    for line in lines:
        err.print(Text(line), soft_wrap=True)


class _Progress:
    """The selection's progress on stderr: its notes, then a bar of documents read (with the
    total where the corpus's size is known) and documents selected so far."""

    def __enter__(self):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("documents"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[selected]} selected"), TimeElapsedColumn(),
                            TimeRemainingColumn(), console=err, transient=False)
        self.task = None
        return self

    def note(self, text: str) -> None:
        err.print(Text(text, style="dim"), soft_wrap=True)

    def start(self, total: int | None) -> None:
        self.task = self.bar.add_task("read", total=total, selected=0)
        self.bar.start()

    def advance(self, read: int, selected: int) -> None:
        if self.task is not None:
            self.bar.update(self.task, completed=read, selected=selected)

    def __exit__(self, *exc) -> None:
        self.bar.stop()
