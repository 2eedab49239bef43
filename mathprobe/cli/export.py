"""`mathprobe export`: a run's results handed to another tool in its format (e.g. the WE-MATH
authors' leaderboard submission or VLMEvalKit's score CSV), always with the run's card (JSON
and Markdown) beside them."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from mathprobe.cli.card import card_text
from mathprobe.cli.common import DataDir, err, open_existing
from mathprobe.tasks.errors import MathprobeError


def export(
    run_id: Annotated[str, typer.Argument(help="The run to export.")],
    db: Annotated[str, typer.Option("--db", help="DuckDB file, or a DuckLake store.")],
    fmt: Annotated[str, typer.Option("--format", help="What to write: WE-MATH leaderboard (the "
                                     "authors' result JSON and score CSVs) or vlmevalkit "
                                     "(VLMEvalKit's score CSV).")],
    out: Annotated[Path, typer.Option("--out", help="The folder to write into.")],
    grader: Annotated[Optional[str], typer.Option("--grader", help="Whose verdicts the figures "
                                                  "use (default: the format's).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Write a run's results in another tool's format, with the run's card (JSON and Markdown)
    beside them."""
    from mathprobe.tasks import registry
    from mathprobe.tasks.reports import card as run_card
    from mathprobe.tasks.reports.summary import find_run

    store = open_existing(db)
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    writers = bench.exports()
    if fmt not in writers:
        raise MathprobeError(f"--format {fmt!r}: {bench.title} runs export to "
                             f"{', '.join(sorted(writers)) or 'nothing yet'}")
    paths, notes = writers[fmt](store, run_id, grader, out, registry.resolve_data_dir(data_dir))
    the_card = run_card.build(store, run_id)
    stem = out / f"{_stem(run_id)}.card"
    for suffix, as_json in ((".json", True), (".md", False)):
        Path(f"{stem}{suffix}").write_text(card_text(the_card, as_json), encoding="utf-8")
        paths.append(Path(f"{stem}{suffix}"))
    err.print(f"wrote {len(paths)} file(s) to {out}: {', '.join(p.name for p in paths)}")
    for note in notes:
        err.print(f"note: {note}", style="yellow", soft_wrap=True)


def _stem(run_id: str) -> str:
    import re

    return re.sub(r"[^\w.-]+", "-", run_id).strip("-") or "run"
