"""The store's SQL, in the order it is applied (by a write open that finds it changed):
`sql/schema.sql` (the core tables), the core view layer (`sql/core/`), then each registered
benchmark's files (`Benchmark.sql_files()`), benchmarks in name order, each file's text with
its stored figures written out (`-- @stored <view>` lines: mathprobe/store/stored_sql.py). Every
statement is idempotent."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from mathprobe.paths import SQL_DIR
from mathprobe.store.stored_sql import COMMENT_RE, expand


def core_files() -> list[Path]:
    return [SQL_DIR / "schema.sql", *sorted((SQL_DIR / "core").glob("*.sql"))]


def sql_files() -> list[Path]:
    from mathprobe import registry

    return [*core_files(), *(f for bench in registry.all_benchmarks() for f in bench.sql_files())]


def sql_texts(files: Sequence[Path] | None = None) -> list[str]:
    """The texts of the SQL files (default: the store's, `sql_files()`) as they are applied:
    stored figures written out."""
    return expand([f.read_text() for f in (sql_files() if files is None else files)])


def sql_layer() -> tuple[list[Path], str]:
    """The SQL files a write open applies (when the file holds another version), and the
    content hash of their texts as applied."""
    files = sql_files()
    h = hashlib.sha256()
    for text in sql_texts(files):
        h.update(text.encode())
    return files, h.hexdigest()


def apply(con, files: list[Path]) -> bool:
    """Execute the store's SQL files in order, as `sql_texts` writes them out. In a comments
    file (`*comments.sql`) only the comments that differ from the catalog's are written:
    duckdb 1.5.5 cannot replay a `COMMENT ON COLUMN` of a table whose defaults call a function
    (current_timestamp, nextval) from the WAL, so a process killed before a checkpoint would
    leave a file that no longer opens. Returns whether such a table comment was written; the
    caller then checkpoints."""
    wrote_table_comment = False
    for f, text in zip(files, sql_texts(files)):
        if not f.name.endswith("comments.sql"):
            con.execute(text)
            continue
        tables = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        current = dict(((k, n), c) for k, n, c in con.execute("""
            SELECT 'TABLE', table_name, comment FROM duckdb_tables()
            UNION ALL SELECT 'VIEW', view_name, comment FROM duckdb_views()
            UNION ALL SELECT 'COLUMN', table_name || '.' || column_name, comment
            FROM duckdb_columns()""").fetchall())
        todo = []
        for m in COMMENT_RE.finditer(text):
            kind, name, value = m.group(1), m.group(2), m.group(3).replace("''", "'")
            if current.get((kind, name)) != value:
                todo.append(m.group(0))
                wrote_table_comment |= kind != "VIEW" and name.split(".")[0] in tables
        if todo:
            con.execute("\n".join(todo))
    return wrote_table_comment
