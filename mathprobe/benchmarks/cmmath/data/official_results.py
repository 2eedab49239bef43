"""Responses made elsewhere, in the CMMaTH authors' result format (records + model answer), and
the authors' own judge's verdicts when the file carries them (`output_correct`).

The authors' result files (e.g. result/gpt4v/eval/eval_result.json in zzli2022/CMMaTH, commit
1f6ca89, read for this) are cmmath.json records of the FULL benchmark, each with the model's
answer in `model_response` and their GPT-4 judge's `output_correct`; the local cmmath.json is a
sample holding about 3% of those problems. So a record whose problem is not in the local data is
taken from the file itself: it carries the question, answer, answer type, grade, visual subject
and knowledge point, checked exactly as cmmath.json's records are (`dataset.parse_record`). A record
that cannot stand for its problem, or that contradicts the local data, is left out and listed
(`Skipped`), never a stop at the first one.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from mathprobe.benchmarks.cmmath.data.dataset import Dataset, parse_record, reference_tables
from mathprobe.benchmarks.cmmath.data.knowledge_points import item_points
from mathprobe.benchmarks.cmmath.grading.response_text import ZERO_WIDTH_RE
from mathprobe.contract import Columns, OfficialRow, ResultFile, Skipped
from mathprobe.errors import DataError
from mathprobe.files import read_records
from mathprobe.items import Item

# The grader name of the verdicts an authors' result file carries.
AUTHORS_JUDGE = "authors_judge"
VERDICT_FIELD = "output_correct"
RESPONSE_FIELDS = ("response", "model_response")
# what a result row adds to a cmmath.json record: not part of the problem
RESULT_FIELDS = (*RESPONSE_FIELDS, VERDICT_FIELD)


def _norm_text(s: str) -> str:
    return re.sub(r"\s+", "", ZERO_WIDTH_RE.sub("", unicodedata.normalize("NFC", s)))


def read_official_results(path: Path, dataset: Dataset) -> ResultFile:
    """The authors' result format: cmmath.json records plus the model's answer in `response`
    (or `model_response`, as in the authors' scripts), as a JSON array or JSONL; with their
    judge's verdict in `output_correct` ("Yes"/"No", the files their tool/statics_acc.py
    scores), which becomes grader `authors_judge` ("Yes" right, "No" wrong, as their script
    counts exactly "Yes").

    Rows are matched to the local data by problem_id; a problem the local data lacks is taken
    from the row itself when the row is a whole record. Left out and listed: a row that is not
    a record, has no problem id, repeats a problem, is not in the local data and is not a whole
    record, asks another question than cmmath.json under the same id, has a response that is not
    text, or an `output_correct` other than "Yes"/"No". A file judged on some rows and not on
    others is an error (the file, not a row, is wrong).
    """
    path = Path(path)
    known = dataset.by_id()
    data_dir = Path(dataset.data_dir) if dataset.data_dir else path.parent
    out: list[OfficialRow] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    judged: dict[bool, int] = {}             # has output_correct -> first such row
    for n, row in read_records(path):
        if not isinstance(row, dict):
            skipped.append(Skipped(n, None, "expected a JSON object"))
            continue
        pid = row.get("problem_id")
        if not isinstance(pid, str) or not pid:
            skipped.append(Skipped(n, None, "problem_id missing or not a string (problem ids "
                                            "are strings such as '00014')"))
            continue
        has_verdict = VERDICT_FIELD in row
        judged.setdefault(has_verdict, n)
        if len(judged) > 1:
            first = judged[not has_verdict]
            raise DataError(path, f"{'has' if has_verdict else 'lacks'} the judge's verdict, row "
                            f"{first} {'lacks' if has_verdict else 'has'} it: a file is judged "
                            "throughout or not at all", row=n, field=VERDICT_FIELD, item=pid)
        if pid in seen:
            skipped.append(Skipped(n, pid, f"problem appears twice (also row {seen[pid]})"))
            continue
        item, why = _item_of(row, n, pid, known, path, data_dir)
        if item is None:
            skipped.append(Skipped(n, pid, why))
            continue
        response = next((row[f] for f in RESPONSE_FIELDS if f in row), None)
        if response is not None and not isinstance(response, str):
            skipped.append(Skipped(n, pid, f"response is a {type(response).__name__}, not text"))
            continue
        verdicts = {}
        if has_verdict:
            value = row[VERDICT_FIELD]
            if value not in ("Yes", "No"):
                skipped.append(Skipped(n, pid, f"{VERDICT_FIELD} is {value!r}: expected 'Yes' or "
                                               "'No' (the authors' statics_acc.py counts exactly "
                                               "'Yes' as right)"))
                continue
            verdicts[AUTHORS_JUDGE] = (value, value == "Yes")
        seen[pid] = n
        out.append(OfficialRow(item, response, verdicts))
    return ResultFile(out, skipped, source={"tool": "CMMaTH authors' result file"})


def _item_of(row: dict, n: int, pid: str, known: dict[str, Item], path: Path,
             data_dir: Path) -> tuple[Item | None, str]:
    """The item a row answers: the local data's, or the one the row's record defines; else
    None and why."""
    item = known.get(pid)
    if item is not None:
        if isinstance(row.get("question"), str) and \
                _norm_text(row["question"]) != _norm_text(item.question):
            return None, "question text differs from cmmath.json's problem of this id"
        return item, ""
    record = {k: v for k, v in row.items() if k not in RESULT_FIELDS}
    try:
        item, _ = parse_record(record, path=path, n=n, data_dir=data_dir)
    except DataError as exc:
        field = f" ({exc.field})" if exc.field else ""
        return None, (f"not in cmmath.json, and the row is not a whole record to take it from"
                      f"{field}: {str(exc).rsplit(': ', 1)[-1]}")
    return item, ""


def imported_tables(items: Sequence[Item]) -> dict[str, Columns]:
    """The labels and points of problems a result file defines itself, for the views: the
    columns of cmmath.json's reference tables (`dataset.reference_tables`), in the tables a
    reload of the data leaves alone."""
    points = []
    for i in items:
        leaves, source = item_points(i.payload)
        points += [(i.item_id, leaf, p, source) for leaf, p in leaves]
    return reference_tables(Dataset(items=tuple(items), points=tuple(points)),
                            "cmmath_imported_items", "cmmath_imported_item_points")
