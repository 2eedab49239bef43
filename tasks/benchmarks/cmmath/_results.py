"""Responses made elsewhere, in the CMMaTH authors' result format (records + model answer), and
the authors' own judge's verdicts when the file carries them (`output_correct`)."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from mathprobe.tasks.benchmarks.cmmath._data import Dataset
from mathprobe.tasks.benchmarks.cmmath._text import ZERO_WIDTH_RE
from mathprobe.tasks.contract import OfficialRow
from mathprobe.tasks.errors import DataError
from mathprobe.tasks.files import read_result_rows, response_text

# The grader name of the verdicts an authors' result file carries.
AUTHORS_JUDGE = "authors_judge"
VERDICT_FIELD = "output_correct"


def _norm_text(s: str) -> str:
    return re.sub(r"\s+", "", ZERO_WIDTH_RE.sub("", unicodedata.normalize("NFC", s)))


def read_official_results(path: Path, dataset: Dataset) -> list[OfficialRow]:
    """The authors' result format: cmmath.json records plus the model's answer in `response`
    (or `model_response`, as in the authors' scripts), as a JSON array or JSONL; with their
    judge's verdict in `output_correct` ("Yes"/"No", the files their tool/statics_acc.py
    scores), which becomes grader `authors_judge` ("Yes" right, "No" wrong, as their script
    counts exactly "Yes").

    Rows are matched to the dataset by problem_id; an unknown or repeated problem_id, a
    question text that differs from cmmath.json, an `output_correct` that is neither "Yes" nor
    "No", or one present on some rows and missing on others, is an error naming the row.
    """
    path = Path(path)
    known = dataset.by_id()
    out: list[OfficialRow] = []
    seen: dict[str, int] = {}
    judged: dict[bool, int] = {}             # has output_correct -> first such row
    for n, row in read_result_rows(path):
        pid = row.get("problem_id")
        if not isinstance(pid, str) or not pid:
            raise DataError(path, "missing or not a string (problem ids are strings such as "
                            "'00014')", row=n, field="problem_id")
        item = known.get(pid)
        if item is None:
            raise DataError(path, "no such problem in cmmath.json", row=n, field="problem_id",
                            item=pid)
        if pid in seen:
            raise DataError(path, f"problem appears twice (also row {seen[pid]})", row=n,
                            field="problem_id", item=pid)
        seen[pid] = n
        if isinstance(row.get("question"), str) and \
                _norm_text(row["question"]) != _norm_text(item.question):
            raise DataError(path, "question text differs from cmmath.json", row=n,
                            field="question", item=pid)
        has_verdict = VERDICT_FIELD in row
        judged.setdefault(has_verdict, n)
        if len(judged) > 1:
            first = judged[not has_verdict]
            raise DataError(path, f"{'has' if has_verdict else 'lacks'} the judge's verdict, row "
                            f"{first} {'lacks' if has_verdict else 'has'} it: a file is judged "
                            "throughout or not at all", row=n, field=VERDICT_FIELD, item=pid)
        verdicts = {}
        if has_verdict:
            value = row[VERDICT_FIELD]
            if value not in ("Yes", "No"):
                raise DataError(path, f"expected 'Yes' or 'No', got {value!r} (the authors' "
                                "statics_acc.py counts exactly 'Yes' as right)", row=n,
                                field=VERDICT_FIELD, item=pid)
            verdicts[AUTHORS_JUDGE] = (value, value == "Yes")
        out.append(OfficialRow(item, response_text(path, n, row, pid,
                                                   ("response", "model_response")), verdicts))
    return out
