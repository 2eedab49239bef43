"""The store's SQL, in the order it is applied (by a write open that finds it changed):
`sql/schema.sql` (the core tables), the core view layer (`sql/core/`), then each registered
benchmark's files (`Benchmark.sql_files()`), benchmarks in name order. Every statement is
idempotent."""
from __future__ import annotations

import hashlib
from pathlib import Path

from tasks.paths import SQL_DIR


def core_files() -> list[Path]:
    return [SQL_DIR / "schema.sql", *sorted((SQL_DIR / "core").glob("*.sql"))]


def sql_files() -> list[Path]:
    from tasks import registry

    return [*core_files(), *(f for bench in registry.all_benchmarks() for f in bench.sql_files())]


def sql_layer() -> tuple[list[Path], str]:
    """The SQL files a write open applies (when the file holds another version), and their
    content hash."""
    files = sql_files()
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return files, h.hexdigest()
