"""Responses made elsewhere, in the WE-MATH authors' result format (testmini rows + response)."""
from __future__ import annotations

from pathlib import Path

from mathprobe.benchmarks.wemath.data.dataset import Dataset, item_id, option_letters
from mathprobe.contract import OfficialRow, Skipped
from mathprobe.errors import DataError
from mathprobe.files import read_result_rows, response_text
from mathprobe.items import Item


def read_official_results(path: Path, dataset: Dataset) -> list[OfficialRow]:
    """The authors' result format: testmini rows plus a `response` field (JSON array or JSONL).

    Rows are matched to the dataset by ID and key; a row whose question or gold `answer`
    differs from the dataset's (the file is not about these questions), an unknown problem, or
    a duplicate is an error naming the row and field.
    """
    path = Path(path)
    known = dataset.by_id()
    out: list[OfficialRow] = []
    seen: set[str] = set()
    for n, row in read_result_rows(path):
        for f in ("ID", "key"):
            if not isinstance(row.get(f), str):
                raise DataError(path, "missing or not a string", row=n, field=f)
        iid = item_id(row)
        item = known.get(iid)
        if item is None:
            raise DataError(path, "no such question in testmini.json", row=n, field="ID", item=iid)
        if iid in seen:
            raise DataError(path, "question appears twice", row=n, field="key", item=iid)
        seen.add(iid)
        if "question" in row and row["question"] != item.question:
            raise DataError(path, "question text differs from testmini.json", row=n,
                            field="question", item=iid)
        if "answer" in row and str(row["answer"]).strip() != item.gold:
            letters = option_letters(item.payload.get("option", ""))
            raise DataError(path, (f"{row['answer']!r} differs from testmini.json's answer "
                                   f"{item.gold!r}" if str(row["answer"]).strip() in letters
                                   else f"{row['answer']!r} is none of the question's options "
                                   f"{', '.join(letters)}"), row=n, field="answer", item=iid)
        out.append(OfficialRow(item, response_text(path, n, row, iid), row=n))
    return out


def match_row(known: dict[str, Item], seen: dict[str, int], n: int, ident: str,
              answer: object = None, answer_field: str = "answer") -> Item | Skipped:
    """Another tool's row `n` for the testmini question `ident` ({ID}/{key}): the item, or why
    the row is left out (a Skipped: an unknown question, a repeat, a gold answer other than
    testmini's).
    The caller records `seen[ident] = n` once it keeps the row."""
    item = known.get(ident)
    if item is None:
        return Skipped(n, ident, "no such question in testmini.json (ID/key)")
    if ident in seen:
        return Skipped(n, ident, f"question appears twice (also row {seen[ident]})")
    if answer is not None and str(answer).strip() != item.gold:
        return Skipped(n, ident, f"{answer_field} {answer!r} differs from testmini.json's "
                                 f"answer {item.gold!r}")
    return item
