"""Responses made elsewhere, in the CMMaTH authors' result format (records + model answer)."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tasks.benchmarks.cmmath._data import Dataset
from tasks.benchmarks.cmmath._text import ZERO_WIDTH_RE
from tasks.errors import DataError
from tasks.files import read_result_rows, response_text
from tasks.items import Item


def _norm_text(s: str) -> str:
    return re.sub(r"\s+", "", ZERO_WIDTH_RE.sub("", unicodedata.normalize("NFC", s)))


def read_official_results(path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
    """The authors' result format: cmmath.json records plus the model's answer in `response`
    (or `model_response`, as in the authors' README), as a JSON array or JSONL.

    Rows are matched to the dataset by problem_id; an unknown or repeated problem_id, or a
    question text that differs from cmmath.json, is an error naming the row.
    """
    path = Path(path)
    known = dataset.by_id()
    out: list[tuple[Item, str | None]] = []
    seen: dict[str, int] = {}
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
        out.append((item, response_text(path, n, row, pid, ("response", "model_response"))))
    return out
