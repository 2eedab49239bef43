"""The store's SQL: the core layer (`sql/core/`) and each registered benchmark's files
(`Benchmark.sql_files()`, benchmarks in name order), one object to a file, named after it, its
comments beside it. They are applied in the order of what they mention (a file after the files
creating the objects it uses: mathprobe/store/sql_order.py), each text with its stored figures
written out (`-- @stored <view>` lines: mathprobe/store/stored_sql.py). Every statement is
idempotent.

A column with no comment of its own gets the shared description of its name, written once in
`column_docs()` (sql/core/column_docs.sql: run_id, grader, ...)."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from mathprobe.paths import SQL_DIR
from mathprobe.store.sql_order import order, statements
from mathprobe.store.stored_sql import COMMENT_RE, comment_text, expand


def _shown(f: Path) -> str:
    """A file's name in an error: sql/... for the package's own, else the whole path."""
    path, root = str(f), str(SQL_DIR.parent) + "/"
    return path[len(root):] if path.startswith(str(SQL_DIR) + "/") else path


def _listed() -> list[Path]:
    """The core layer's files, then each registered benchmark's (benchmarks in name order)."""
    from mathprobe import registry

    return [*sorted((SQL_DIR / "core").rglob("*.sql")),
            *(f for bench in registry.all_benchmarks() for f in bench.sql_files())]


def _layer(listed: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The files in the order they are applied, and their texts as applied (worked out again
    only when a file changed: every open of a store asks)."""
    files, texts = _read_layer(tuple((f, f.stat().st_mtime_ns, f.stat().st_size)
                                     for f in listed))
    return list(files), list(texts)


@lru_cache(maxsize=4)
def _read_layer(stamped: tuple[tuple[Path, int, int], ...]
                ) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    listed = [f for f, _, _ in stamped]
    raw = [f.read_text() for f in listed]
    at = order(list(zip(map(_shown, listed), expand(raw))))
    return tuple(listed[i] for i in at), tuple(expand([raw[i] for i in at]))


def core_files() -> list[Path]:
    return _layer(sorted((SQL_DIR / "core").rglob("*.sql")))[0]


def sql_files() -> list[Path]:
    """Every SQL file of the store, in the order they are applied: the core layer first (it
    names no benchmark), then the benchmarks' files."""
    return _layer(_listed())[0]


def sql_texts(files: Sequence[Path] | None = None) -> list[str]:
    """The texts of the SQL files (default: the store's, `sql_files()`) as they are applied:
    stored figures written out."""
    if files is None:
        return _layer(_listed())[1]
    return expand([f.read_text() for f in files])


def sql_layer() -> tuple[list[Path], str]:
    """The SQL files a write open applies (when the file holds another version), and the
    content hash of their texts as applied."""
    files, texts = _layer(_listed())
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode())
    return files, h.hexdigest()


def apply(con, files: list[Path]) -> bool:
    """Execute the store's SQL files in order, as `sql_texts` writes them out: every definition,
    then the comments (`write_comments`). Returns whether a table's comment was written; the
    caller then checkpoints."""
    texts = sql_texts(files)
    for text in texts:
        if statements(text).strip():
            con.execute(COMMENT_RE.sub("", text))
    return write_comments(con, texts)


def write_comments(con, texts: Sequence[str], view_columns: bool = True) -> bool:
    """Give every table, view and column the comment the texts write for it (`COMMENT ON`), and
    every column without one the shared description of its name (`column_docs()`), writing
    only those that differ from the catalog's: duckdb 1.5.5 cannot replay a `COMMENT ON COLUMN`
    of a table whose defaults call a function (current_timestamp, nextval) from the WAL, so a
    process killed before a checkpoint would leave a file that no longer opens. `view_columns`
    False: not on a view's columns (DuckLake refuses them). Returns whether a table's comment
    was written."""
    wanted: dict[tuple[str, str], str] = {}
    for text in texts:
        for m in COMMENT_RE.finditer(text):
            wanted[(m.group(1), m.group(2).lower())] = comment_text(m.group(3))
    here = "database_name = current_database() AND NOT internal"
    tables = {t for (t,) in con.execute(f"SELECT table_name FROM duckdb_tables() WHERE {here}")
              .fetchall()}
    current = {(k, n): c for k, n, c in con.execute(f"""
        SELECT 'TABLE', table_name, comment FROM duckdb_tables() WHERE {here}
        UNION ALL SELECT 'VIEW', view_name, comment FROM duckdb_views() WHERE {here}
        UNION ALL SELECT 'COLUMN', table_name || '.' || column_name, comment
        FROM duckdb_columns() WHERE {here}""").fetchall()}
    docs = dict(con.execute("SELECT column_name, comment FROM column_docs()").fetchall())
    for kind, name in current:
        column = name.partition(".")[2]
        if kind == "COLUMN" and (kind, name) not in wanted and column in docs:
            wanted[(kind, name)] = docs[column]
    todo, wrote_table_comment = [], False
    for (kind, name), value in wanted.items():
        table = name.split(".")[0]
        if current.get((kind, name)) == value or (
                kind == "COLUMN" and not view_columns and table not in tables):
            continue
        quoted = value.replace("'", "''")
        todo.append(f"COMMENT ON {kind} {name} IS '{quoted}';")
        wrote_table_comment |= kind != "VIEW" and table in tables
    if todo:
        con.execute("\n".join(todo))
    return wrote_table_comment
