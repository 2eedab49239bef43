"""The paths a command writes, checked before any work: a file or folder it can write, and never
one it reads (the store, its WAL, a lake's catalog and data folder, the benchmark data:
`mathprobe.store.owned_paths`), for every output flag and for `sql "COPY ... TO"`. An output
aimed at the store had replaced it (issue 33): the check runs before anything is read or asked.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from mathprobe.errors import MathprobeError
from mathprobe.store.owned_paths import Owned, clash


def output_file(flag: str, path: str | Path, owned: Sequence[Owned] = ()) -> Path:
    """A file the command will write: not a directory, not one the command reads (`owned`: the
    store's files, the data; mathprobe/store/owned_paths.py), in a folder that exists or can be made
    and that takes files (checked before any work, not after it)."""
    path = Path(path).expanduser()
    not_owned(flag, path, owned)
    if path.is_dir():
        raise MathprobeError(f"{flag} {path}: is a directory; name a file in it")
    _writable_folder(flag, path, path.resolve().parent)
    if path.exists() and not os.access(path, os.W_OK):
        raise MathprobeError(f"{flag} {path}: cannot write to it (no permission)")
    return path


def output_dir(flag: str, path: str | Path, owned: Sequence[Owned] = ()) -> Path:
    """A folder the command will write files into: not a file (nor one the command reads), not
    inside a folder the command reads, existing or possible to make, and taking files."""
    path = Path(path).expanduser()
    not_owned(flag, path, owned)
    if path.exists() and not path.is_dir():
        raise MathprobeError(f"{flag} {path}: is a file, not a folder")
    _writable_folder(flag, path, path.resolve())
    return path


def not_owned(flag: str, path: str | Path, owned: Sequence[Owned]) -> None:
    """The one-line error for an output path that would overwrite (or write into) something the
    command reads: the store, its sidecar files, a lake's data folder, the benchmark data."""
    hit = clash(path, list(owned))
    if hit is not None:
        same = "is" if hit.path.resolve() == Path(path).expanduser().resolve() else (
            "is inside" if hit.folder else "is the same file as")
        raise MathprobeError(f"{flag} {path}: {same} {hit.what} ({hit.path}); writing there "
                             "would destroy it: name another file")


SQL_TOKEN = re.compile(r"'((?:[^']|'')*)'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|(\w+)|([()])|\S",
                       re.DOTALL)


def sql_outputs(query: str, owned: Sequence[Owned]) -> None:
    """`mathprobe sql` is read-only, yet DuckDB's COPY ... TO, EXPORT DATABASE and ATTACH write
    files wherever they are told, the store's own file included: the file each such statement
    writes (COPY's target after its top-level TO, EXPORT's folder, ATTACH's file) is checked
    against `owned` before the query runs. A file a COPY only reads is not a target."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error:
        return                                   # the query's own error, when it runs
    for statement in statements:
        top: list[tuple[str, str]] = []          # ('word' | 'text', value) outside parentheses
        depth = 0
        for m in SQL_TOKEN.finditer(statement.query):
            text, word, paren = m.group(1), m.group(2), m.group(3)
            depth += {"(": 1, ")": -1}.get(paren or "", 0)
            if depth == 0 and (text is not None or word):
                top.append(("text", text.replace("''", "'")) if text is not None
                           else ("word", word.upper()))
        texts = [v for k, v in top if k == "text"]
        if statement.type == duckdb.StatementType.COPY:
            after_to = [top[i + 1] for i, t in enumerate(top[:-1]) if t == ("word", "TO")]
            targets = [v for k, v in after_to if k == "text"]
        elif statement.type == duckdb.StatementType.EXPORT:
            targets = texts[-1:]
        elif statement.type == duckdb.StatementType.ATTACH:
            targets = texts[:1]
        else:
            continue
        flag = {"COPY": "sql: COPY ... TO", "EXPORT": "sql: EXPORT DATABASE"}.get(
            statement.type.name, "sql: ATTACH")
        for target in targets:
            not_owned(flag, target, owned)


def _writable_folder(flag: str, path: Path, folder: Path) -> None:
    existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    if existing is None or not existing.is_dir():
        raise MathprobeError(f"{flag} {path}: {existing} is not a folder")
    if read_only(existing):
        raise MathprobeError(f"{flag} {path}: {existing} is on a read-only file system")
    if not os.access(existing, os.W_OK):
        raise MathprobeError(f"{flag} {path}: cannot create files in {existing} (no permission)")


def read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False
