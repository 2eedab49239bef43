"""Bulk writes that mean the same on a DuckDB file and on a DuckLake catalog: parallel Python
lists turned into rows in one statement (no executemany), and a keyed replace written as
delete-then-insert (DuckLake has no keys, so no INSERT OR REPLACE)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb


def unnest(columns: dict[str, tuple[str, list]]) -> tuple[str, dict[str, Any]]:
    """A SELECT list that turns parallel Python lists into rows, and its parameters:
    {name: (type, values)} -> ("unnest($name::type[]) AS name, ...", {name: values}), to which
    the caller adds the statement's scalar parameters."""
    select = ", ".join(f"unnest(${name}::{typ}[]) AS {name}" for name, (typ, _) in columns.items())
    return select, {name: values for name, (_, values) in columns.items()}


def unnest_strings(columns: dict[str, list[str | None]], param: str = "rows"
                   ) -> tuple[str, dict[str, str]]:
    """Like `unnest` for text columns, bound as ONE parameter (a JSON document of the columns)
    that DuckDB takes apart: duckdb converts a Python list parameter element by element
    (~10 us each: 0.15 s a statement for WE-MATH's 1,740 items of 8 columns, paid before a
    run's first request); one string binds at once. -> (a SELECT over the rows, its params)."""
    import json

    shape = json.dumps({name: ["VARCHAR"] for name in columns}).replace("'", "''")
    select = (f"SELECT {', '.join(f'unnest(d.{name}) AS {name}' for name in columns)} "
              f"FROM (SELECT from_json(${param}::JSON, '{shape}') AS d)")
    return select, {param: json.dumps(columns, ensure_ascii=False)}


def replace_keyed(con: duckdb.DuckDBPyConnection, table: str, key: Sequence[str], select: str,
                  params: Any) -> None:
    """Insert the rows of `select` (all of `table`'s columns, in order), first deleting the rows
    with the same key: what INSERT OR REPLACE does on a file, written so a DuckLake table
    (which has no keys) means the same. Call inside a write."""
    match = " AND ".join(f"t.{k} IS NOT DISTINCT FROM n.{k}" for k in key)
    con.execute(f"DELETE FROM {table} t WHERE EXISTS (SELECT 1 FROM ({select}) n WHERE {match})",
                params)
    con.execute(f"INSERT INTO {table} {select}", params)
