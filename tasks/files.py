"""Reading JSON data and result files, with errors that name the file and the row."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tasks.errors import DataError

NOT_FOUND = "file not found (is --data-dir / MATHPROBE_DATA_DIR right?)"


def read_json(path: Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise DataError(path, NOT_FOUND)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON: {exc}") from exc


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line (Python's json also reads NaN, which some
    authors' files contain)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, NOT_FOUND)
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DataError(path, f"not valid JSON: {exc}", row=n) from exc
    return out


def read_records(path: Path) -> list[tuple[int, Any]]:
    """(row number, record) of a result file: a JSON array (rows numbered from 1), a single JSON
    object, or JSON lines (rows numbered by line)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return read_jsonl(path)
    if isinstance(data, dict):
        return [(1, data)]
    if isinstance(data, list):
        return list(enumerate(data, start=1))
    raise DataError(path, "expected a JSON array of records, or JSON lines")


def read_result_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row number, record) of a result file in a benchmark authors' format; every record must
    be a JSON object."""
    path = Path(path)
    out = []
    for n, row in read_records(path):
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", row=n)
        out.append((n, row))
    return out


def response_text(path: Path, n: int, row: dict[str, Any], item_id: str,
                  fields: tuple[str, ...] = ("response",)) -> str | None:
    """The model's response of a result row: the first of `fields` present, a string or null."""
    field = next((f for f in fields if f in row), fields[0])
    response = row.get(field)
    if response is not None and not isinstance(response, str):
        raise DataError(path, f"expected a string, got {type(response).__name__}", row=n,
                        field=field, item=item_id)
    return response
