"""The one row of an aggregate query (count, min/max, a single-row table): DuckDB types
`fetchone()` as optional, since a query may return no row, but these always return one, so a
missing row is a broken store and says so rather than failing later on `None`."""
from __future__ import annotations

from typing import Any

import duckdb


def one_row(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> tuple[Any, ...]:
    """The first row of `sql`, which must return one."""
    row = con.execute(sql, params).fetchone()
    if row is None:
        raise LookupError(f"no row from a query that always returns one: {sql}")
    return row
