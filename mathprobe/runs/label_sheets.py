"""Error labels to people and back: a labelling sheet of a run's wrong answers (a seeded
stratified sample, the same answers `mathprobe errors --sample N` labels), each row with the
question, the reference answer and the model's whole response and an empty error-type column;
and the sheet, filled in, read back as a labeller of its own (`source` human), checked whole
before anything is stored: a bad row is one error naming the file, row and field.

The sheet is CSV (UTF-8; a spreadsheet saved as .xlsx or .csv reads back, mathprobe.sheets);
its `error_type` column takes the taxonomy's names as the paper writes them (case and spacing
aside), listed on every row in `error_types`.
"""
from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mathprobe import registry
from mathprobe.contract import Benchmark
from mathprobe.error_taxonomy import Label
from mathprobe.errors import DataError
from mathprobe.items import Item
from mathprobe.runs import labelling
from mathprobe.store import Store

COLUMNS = ("run_id", "item_id", "response_id", "grader", "concept", "question", "image",
           "reference", "response", "error_types", "error_type", "first_error", "note")
FILLED = ("error_type", "first_error", "note")     # what people fill in
NEEDED = ("run_id", "item_id", "response_id", "grader", "error_type")


def write_sheet(store: Store, bench: Benchmark, items: Mapping[str, Item], run: Mapping[str, Any],
                grader: str, sample: int | None, out: Path) -> dict[str, int]:
    """The sheet of the run's wrong answers under `grader` (a sample of about `sample` of them)
    into `out`; how many rows, of how many wrong answers."""
    tax = labelling.taxonomy_of(bench)
    wrong = labelling.wrong_answers(store, run["run_id"], grader)
    chosen = [w for w in labelling.sampled(bench, items, wrong, sample) if w.item_id in items]
    names = " | ".join(tax.names)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for a in chosen:
            item = items[a.item_id]
            image = labelling.labeller_image_path(bench, item, run["setting"])
            w.writerow([run["run_id"], a.item_id, a.response_id, grader, item.concept or "",
                        bench.shown_question(item), image or "", item.gold,
                        a.response if (a.response or "").strip() else
                        f"(no answer: {'an empty answer' if a.status == 'ok' else a.status})",
                        names,
                        "", "", ""])
    return {"rows": len(chosen), "wrong": len(wrong)}


def read_sheet(store: Store, path: Path, labeler: str) -> dict[str, Any]:
    """A filled sheet's labels, stored as `labeler`'s (source human), after every row is
    checked: the run, the item and its answer as the sheet names them, the grader, and an
    error type of the run's benchmark. A blank error type is a row not labelled (counted).
    Returns per run the labels stored and the rows left blank."""
    from mathprobe.sheets import read_table

    path = Path(path)
    rows = [(n, {(k or "").lstrip("\ufeff").strip(): v for k, v in r.items()})
            for n, r in read_table(path)]
    if not rows:
        raise DataError(path, "no rows: expected the sheet `mathprobe errors export-sheet` wrote")
    missing = [c for c in NEEDED if c not in rows[0][1]]
    if missing:
        raise DataError(path, f"no column {', '.join(repr(c) for c in missing)}: expected the "
                        "sheet `mathprobe errors export-sheet` wrote", row=1)
    runs: dict[str, dict[str, Any]] = {}
    labels: dict[str, list[tuple[str, tuple[str, int, Label, str, None]]]] = {}
    blank: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    for n, r in rows:
        run_id = _text(r.get("run_id"))
        if run_id not in runs:
            runs[run_id] = _run(store, path, n, run_id, labeler)
        info = runs[run_id]
        item_id = _text(r.get("item_id"))
        if (run_id, item_id) in seen:
            raise DataError(path, f"item {item_id!r} of run {run_id} is on an earlier row too",
                            row=n, field="item_id")
        seen.add((run_id, item_id))
        current = info["answers"].get(item_id)
        if current is None:
            raise DataError(path, f"run {run_id} has no answer to item {item_id!r}", row=n,
                            field="item_id")
        try:
            response_id = int(_text(r.get("response_id")))
        except ValueError:
            raise DataError(path, f"{r.get('response_id')!r} is not a response id", row=n,
                            field="response_id") from None
        if response_id != current:
            raise DataError(path, f"run {run_id}'s answer to {item_id} is response {current} now, "
                            f"not {response_id}: the sheet is older than the answer; export a "
                            "new sheet", row=n, field="response_id")
        grader = _text(r.get("grader"))
        if grader not in info["graders"]:
            raise DataError(path, f"run {run_id} has no verdicts of grader {grader!r}; its "
                            f"graders: {', '.join(sorted(info['graders']))}", row=n,
                            field="grader")
        said = _text(r.get("error_type"))
        if not said:
            blank[run_id] = blank.get(run_id, 0) + 1
            continue
        tax = info["taxonomy"]
        error_type = tax.canonical(said)
        if error_type is None:
            raise DataError(path, f"{said!r} is not an error type of {info['title']} "
                            f"({tax.source}); one of: {', '.join(tax.names)}", row=n,
                            field="error_type")
        label = Label(error_type, _text(r.get("first_error")) or None, _text(r.get("note")) or None)
        labels.setdefault(run_id, []).append(
            (grader, (item_id, response_id, label, "human", None)))
    for run_id, info in runs.items():          # every row checked: now stored
        labelling.write_types(store, info["bench"])
        by_grader: dict[str, list] = {}
        for grader, row in labels.get(run_id, []):
            by_grader.setdefault(grader, []).append(row)
        for grader, got in by_grader.items():
            labelling.store_labels(store, run_id, labeler, grader, got)
    return {"labeler": labeler, "runs": {r: {"labelled": len(labels.get(r, [])),
                                             "blank": blank.get(r, 0)} for r in runs}}


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _run(store: Store, path: Path, row: int, run_id: str, labeler: str) -> dict[str, Any]:
    """What checking a sheet's rows of one run needs: its benchmark's taxonomy, its answers
    that count (item -> response id), its graders."""
    found = store.run(run_id) if run_id else None
    if found is None:
        raise DataError(path, f"no run {run_id!r} in {store.path}", row=row, field="run_id")
    bench = registry.get(found["benchmark"])
    if bench.error_taxonomy is None:
        raise DataError(path, f"run {run_id} is a {bench.title} run, which declares no error "
                        "taxonomy", row=row, field="run_id")
    model_labels = store.query("SELECT count(*) FROM error_labels WHERE run_id = ? AND "
                               "labeler = ? AND source <> 'human'", [run_id, labeler])[0][0]
    if model_labels:
        raise DataError(path, f"--labeler {labeler!r}: run {run_id} already has that labeller "
                        "model's labels; give the people's labels a name of their own",
                        row=row, field="run_id")
    answers = dict(store.query("SELECT item_id, answer_id FROM current_response_ids WHERE "
                               "run_id = ? AND answer_id IS NOT NULL", [run_id]))
    graders = {g for (g,) in store.query("SELECT DISTINCT grader FROM item_verdicts WHERE "
                                         "run_id = ?", [run_id])}
    return {"bench": bench, "title": bench.title, "taxonomy": bench.error_taxonomy,
            "answers": answers, "graders": graders}
