"""`mathprobe export`: a run's results handed to another tool in its format (e.g. the WE-MATH
authors' leaderboard submission or VLMEvalKit's score CSV), always with the run's card (JSON
and Markdown) beside them.

Some of those files have fixed names (`four_dimensional_metrics.csv`), so a second run exported
into the same folder once replaced half of the first one's files and left a folder pairing one
run's answers with another's scores. Each export therefore records what it wrote in the
folder's `mathprobe-export.json`; a folder holding another run's export is refused unless
`--replace` (which removes that export first), and the files are written to a staging folder
and moved into place only once all of them are made."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from mathprobe.cli.card import card_text
from mathprobe.cli.common import DataDir, err, open_existing, reads
from mathprobe.errors import MathprobeError

MANIFEST = "mathprobe-export.json"


def export(
    run_id: Annotated[str, typer.Argument(help="The run to export.")],
    db: Annotated[str, typer.Option("--db", help="DuckDB file, or a DuckLake store.")],
    fmt: Annotated[str, typer.Option("--format", help="What to write: WE-MATH leaderboard (the "
                                     "authors' result JSON and score CSVs) or vlmevalkit "
                                     "(VLMEvalKit's score CSV).")],
    out: Annotated[Path, typer.Option("--out", help="The folder to write into.")],
    grader: Annotated[str | None, typer.Option("--grader", help="Whose verdicts the figures "
                                                  "use (default: the format's).")] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="The folder holds another run's export: remove its files first "
        "(without it, such a folder is refused: one folder, one run).")] = False,
    data_dir: DataDir = None,
) -> None:
    """Write a run's results in another tool's format, with the run's card (JSON and Markdown)
    beside them."""
    from mathprobe import registry
    from mathprobe.reports import card as run_card
    from mathprobe.reports.summary import find_run
    from mathprobe.runs import output_paths

    owned = reads(db, data_dir)
    output_paths.output_dir("--out", out, owned)
    store = open_existing(db)
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    writers = bench.exports()
    if fmt not in writers:
        raise MathprobeError(f"--format {fmt!r}: {bench.title} runs export to "
                             f"{', '.join(sorted(writers)) or 'nothing yet'}")
    others = other_exports(out, run_id)
    if others and not replace:
        raise MathprobeError(f"--out {out}: holds the export of run(s) "
                             f"{', '.join(sorted(others))}; writing run {run_id} there would "
                             "mix two runs' files: name another folder, or add --replace to "
                             "remove that export first")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".mathprobe-export-", dir=out) as staging:
        stage = Path(staging)
        paths, notes = writers[fmt](store, run_id, grader, stage,
                                    registry.resolve_data_dir(data_dir))
        the_card = run_card.build(store, run_id)
        stem = stage / f"{_stem(run_id)}.card"
        for suffix, as_json in ((".json", True), (".md", False)):
            Path(f"{stem}{suffix}").write_text(card_text(the_card, as_json), encoding="utf-8")
            paths.append(Path(f"{stem}{suffix}"))
        names = [p.name for p in paths]
        for name in names:                  # before anything in the folder is touched
            output_paths.not_owned("--out", out / name, owned)
        mine = _manifest(out).get("files", {}) if not others else {}
        strangers = [n for n in names if (out / n).exists() and n not in mine]
        if strangers and not replace:
            raise MathprobeError(f"--out {out}: {', '.join(strangers)} already there and not "
                                 f"written by an export of run {run_id}; name another folder, "
                                 "or add --replace to overwrite")
        if others:
            _remove_export(out)
        for path in paths:
            os.replace(path, out / path.name)
        files = {**mine, **{n: fmt for n in names}}
        (out / MANIFEST).write_text(json.dumps({"run_id": run_id, "files": files}, indent=2),
                                    encoding="utf-8")
    err.print(f"wrote {len(paths)} file(s) to {out}: {', '.join(names)}")
    for note in notes:
        err.print(f"note: {note}", style="yellow", soft_wrap=True)


def other_exports(folder: Path, run_id: str) -> set[str]:
    """The runs other than `run_id` whose export the folder holds: its manifest's, and any run
    card (`*.card.json`, written beside every export, older ones included)."""
    runs = {_manifest(folder).get("run_id")}
    for card in folder.glob("*.card.json") if folder.is_dir() else ():
        try:
            runs.add(json.loads(card.read_text(encoding="utf-8"))["run"]["run_id"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return {r for r in runs if r and r != run_id}


def _manifest(folder: Path) -> dict:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remove_export(folder: Path) -> None:
    """--replace: the files the folder's export wrote (its manifest), and the run cards."""
    for name in _manifest(folder).get("files", {}):
        target = folder / Path(name).name
        if target.is_file():
            target.unlink()
    for card in [*folder.glob("*.card.json"), *folder.glob("*.card.md")]:
        card.unlink()
    (folder / MANIFEST).unlink(missing_ok=True)


def _stem(run_id: str) -> str:
    import re

    return re.sub(r"[^\w.-]+", "-", run_id).strip("-") or "run"
