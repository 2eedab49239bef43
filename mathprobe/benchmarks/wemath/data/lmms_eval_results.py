"""WE-MATH results made with lmms-eval (EvolvingLMMs-Lab/lmms-eval, read at commit 75571cf of
2026-08-06, v0.7.2+: lmms_eval/evaluator.py, loggers/evaluation_tracker.py
`save_results_samples`, tasks/wemath/reasoning/utils.py and wemath_utils.py).

With `--log_samples` lmms-eval writes `<date>_samples_<task>.jsonl` (task
`wemath_testmini_reasoning`), one JSON object per question: `doc_id`, `target` (the answer
letter, as text), `filtered_resps` (the model's text; a list where a question had several
requests), `resps` when it differs, `input`, token counts and hashes, and each metric's
per-sample value. Since v0.4 the question's `doc` is dropped from the file; the WE-MATH task's
metrics `wemath_loose` / `wemath_strict` carry its row instead (ID, key, question, answer ...),
which is how a row is matched to testmini here (a `doc`, where a file keeps one, is read too).
`acc_score` (1.0 right) is lmms-eval's own verdict, imported as grader `lmms_eval` beside
`official`, which grades the response with the authors' extraction and stays the default.
lmms-eval's WE-MATH scores divide by N = 525 whatever the file holds (wemath_aggregate_results).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.wemath.data.dataset import Dataset
from mathprobe.benchmarks.wemath.data.official_results import match_row
from mathprobe.contract import OfficialRow, ResultFile, Skipped
from mathprobe.files import read_records

GRADER = "lmms_eval"
COMMIT = "75571cfe0fa36ca5ec2e6aa2bb268f9d38295af3"
DOC_FIELDS = ("wemath_strict", "wemath_loose", "doc")
FILE_NAME = re.compile(r"_samples_(?P<task>[^/]+)$")


def _doc(row: dict[str, Any]) -> dict[str, Any] | None:
    for f in DOC_FIELDS:
        value = row.get(f)
        if isinstance(value, dict) and "ID" in value and "key" in value:
            return value
    return None


def _response(row: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the response text, why there is none usable)."""
    value = row.get("filtered_resps", row.get("resps"))
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    return None, f"filtered_resps holds {type(value).__name__} {str(value)[:60]!r}, not one text"


def read_lmms_eval(path: Path, dataset: Dataset) -> ResultFile:
    """lmms-eval's samples JSONL of a WE-MATH task (see the module's docstring)."""
    path = Path(path)
    known = dataset.by_id()
    rows: list[OfficialRow] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    for n, row in read_records(path):
        if not isinstance(row, dict):
            skipped.append(Skipped(n, None, "expected a JSON object"))
            continue
        doc = _doc(row)
        if doc is None:
            skipped.append(Skipped(n, None, "no WE-MATH row (wemath_strict / wemath_loose / "
                                            "doc with ID and key): not a sample of a WE-MATH task"))
            continue
        ident = f"{doc['ID']}/{doc['key']}"
        item = match_row(known, seen, n, ident, row.get("target", doc.get("answer")), "target")
        if isinstance(item, Skipped):
            skipped.append(item)
            continue
        if doc.get("question") is not None and doc["question"] != item.question:
            skipped.append(Skipped(n, ident, "question text differs from testmini.json"))
            continue
        text, why = _response(row)
        if why:
            skipped.append(Skipped(n, ident, why))
            continue
        score = row.get("acc_score")
        verdicts = {}
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            verdicts[GRADER] = (None, score == 1.0)      # their joker: acc_score == 1.0
        seen[ident] = n
        rows.append(OfficialRow(item, text, verdicts, row=n))
    m = FILE_NAME.search(path.stem)
    source = {"tool": "lmms-eval", "read_at_commit": COMMIT,
              **({"task": m.group("task")} if m else {})}
    return ResultFile(rows, skipped, default_verdicts=False, source=source)
