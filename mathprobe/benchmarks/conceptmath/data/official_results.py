"""Responses made elsewhere, in the ConceptMath authors' inference format (dataset rows +
response), and what their evaluation writes (conceptmath/conceptmath, evaluation/main.py, read
at commit c5526b4 of 2024-05-29): `{model}_{grade}_all.json` (and `_right.json`,
`_wrong.json`), JSON lines of the input rows plus `iscorrect`, their grader's verdict. Their
published files carry, in `grade`, the school grades of an older dataset ("[1, 2, 3, 4, 5, 6]")
instead of the system; the system then comes from the file's name. `iscorrect` is imported as
grader `authors_iscorrect` beside `official` (the default: their grader as it stands today,
which differs from the stored verdicts on a few items).

The authors' published response files (`reference_llama3_70b/`) carry, on a few rows, an `answer`
that differs from today's dataset (e.g. middle_en/862: `[2 ,3]` in the file, `[second ,third]`
in the dataset), and the authors' grader grades against the file's answer. An import therefore
grades a row against the answer its file carries.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from mathprobe.benchmarks.conceptmath.data.dataset import (
    SYSTEMS,
    Dataset,
    _is_number,
    _json_safe,
    gold_string,
)
from mathprobe.contract import OfficialRow, ResultFile
from mathprobe.errors import DataError
from mathprobe.files import read_result_rows, response_text
from mathprobe.items import Item, given

AUTHORS_VERDICT = "authors_iscorrect"
# main.py's outputs: {model}_{grade}_all.json / _right.json / _wrong.json; inputs {grade}.jsonl
SYSTEM_IN_NAME = re.compile(r"(?:^|_)(?P<system>" + "|".join(SYSTEMS) + r")(?:_(?:all|right|wrong))?$")


def read_official_results(path: Path, dataset: Dataset
                          ) -> list[tuple[Item, str | None]] | ResultFile:
    """The authors' inference format: dataset rows (idx, grade, question, answer, cate0..2)
    plus `response`, as JSON lines (or a JSON array).

    A row is matched to its item by grade and idx (and by question where one idx holds two
    problems). An unknown system or idx, a question that differs from the dataset's, or an item
    seen twice is a DataError naming the row. A row without a response is returned with None.

    Where the row's `answer` differs from the dataset's, the returned item carries the file's
    answer as its gold, and `import_official` grades the response against it (as the authors'
    grader does: it reads the answer from the file it grades).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    by_key: dict[tuple[str, int], list[Item]] = {}
    for it in dataset.items:
        by_key.setdefault((given(it.group_id, "group_id"), it.payload["idx"]), []).append(it)
    out: list[tuple[Item, str | None]] = []
    verdicts: list[bool | None] = []
    seen: set[str] = set()
    named = SYSTEM_IN_NAME.search(path.stem)
    for n, row in read_result_rows(path):
        system, idx = row.get("grade"), row.get("idx")
        if system not in SYSTEMS and named is not None:
            system = named.group("system")          # main.py's output of an older dataset
        if system not in SYSTEMS:
            raise DataError(path, f"unknown system {system!r} (expected one of "
                            f"{', '.join(SYSTEMS)})", row=n, field="grade")
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise DataError(path, f"missing or not an integer (got {idx!r})", row=n, field="idx")
        ident = f"{system}/{idx}"
        candidates = by_key.get((system, idx))
        if not candidates:
            raise DataError(path, f"no such problem in {system}.jsonl", row=n, field="idx",
                            item=ident)
        question = row.get("question")
        if len(candidates) == 1:
            item = candidates[0]
            if question is not None and question != item.question:
                raise DataError(path, f"question text differs from {system}.jsonl", row=n,
                                field="question", item=ident)
        else:
            matches = [c for c in candidates if c.question == question]
            if not matches:
                raise DataError(path, f"{system}.jsonl has {len(candidates)} problems with idx "
                                f"{idx}; this row's question matches none of them", row=n,
                                field="question", item=ident)
            item = matches[0]
        if item.item_id in seen:
            raise DataError(path, "problem appears twice", row=n, field="idx", item=item.item_id)
        seen.add(item.item_id)
        response = response_text(path, n, row, item.item_id)
        if "answer" in row:
            answer = row["answer"]
            if not (isinstance(answer, str) or _is_number(answer)):
                raise DataError(path, f"expected a string or a number, got "
                                f"{type(answer).__name__}", row=n, field="answer",
                                item=item.item_id)
            file_gold = gold_string(answer)
            if file_gold != item.gold:
                item = replace(item, gold=file_gold,
                               payload={**item.payload, "answer_in_file": _json_safe(answer)})
        out.append((item, response))
        judged = row.get("iscorrect")
        verdicts.append(judged if isinstance(judged, bool) else None)
    if all(v is None for v in verdicts):
        return out
    return ResultFile([OfficialRow(item, response, {} if v is None else
                                   {AUTHORS_VERDICT: ("iscorrect", v)})
                       for (item, response), v in zip(out, verdicts)],
                      default_verdicts=False,
                      source={"tool": "ConceptMath authors' evaluation (evaluation/main.py)"})
