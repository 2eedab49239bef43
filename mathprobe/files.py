"""Reading JSON data and result files, with errors that name the file and the row."""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mathprobe.errors import DataError

NOT_FOUND = "file not found (is --data-dir / MATHPROBE_DATA_DIR right?)"


def read_text(path: Path) -> str:
    """The file as UTF-8 text; bytes that are not UTF-8 are a DataError naming the row and
    field that hold them (the JSON record and key), as for any other malformed value."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(path, f"cannot read the file: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, data, exc) from None


def _not_utf8(path: Path, data: bytes, exc: UnicodeDecodeError) -> DataError:
    line = data.count(b"\n", 0, exc.start) + 1
    message = (f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line "
               f"{line}); re-save the file as UTF-8")
    text = data.decode("utf-8", errors="surrogateescape")       # bad bytes -> lone surrogates
    try:
        where = _first_bad(json.loads(text), [])
    except json.JSONDecodeError:
        where = None
    if where is None:                  # JSON lines: the line is the row
        try:
            where = _first_bad(json.loads(text.splitlines()[line - 1]), [])
        except (json.JSONDecodeError, IndexError):
            where = None
        return DataError(path, message, row=line, field=_field(where or []) or None)
    rows = [i for i, p in enumerate(where) if isinstance(p, int)]
    if not rows:
        return DataError(path, message, field=_field(where) or None)
    k = rows[0]
    return DataError(path, message, row=where[k] + 1,
                     field=_field(where[:k] + where[k + 1:]) or None)


def _first_bad(value: Any, at: list) -> list | None:
    """The path (keys, list indices) of the first string holding an undecodable byte."""
    if isinstance(value, str):
        return at if any("\udc80" <= ch <= "\udcff" for ch in value) else None
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, sub in items:
        if isinstance(key, str) and _first_bad(key, []) is not None:
            return at + [key]
        found = _first_bad(sub, at + [key])
        if found is not None:
            return found
    return None


def _field(path: list) -> str:
    return ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")


def read_json(path: Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise DataError(path, NOT_FOUND)
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON: {exc}") from exc


def read_jsonl(path: Path) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line (Python's json also reads NaN, which some
    authors' files contain)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, NOT_FOUND)
    out = []
    for n, line in enumerate(read_text(path).splitlines(), start=1):
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
        data = json.loads(read_text(path))
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
