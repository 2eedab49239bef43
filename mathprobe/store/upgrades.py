"""What an older DuckDB file needs beyond the SQL layer's own `ADD COLUMN IF NOT EXISTS`: a table
whose key changed is rebuilt under the new key, its rows kept.

`verdicts` was keyed by (run, item, grader) until an item could be asked more than once
(--samples K, docs/sampling.md); now it is keyed by (run, item, sample, grader). DuckDB cannot
change a table's primary key in place, so the write open that applies the new SQL layer (in its
one transaction: mathprobe/store/duckdb_store.py) renames the old table aside before the layer
creates the new one, then copies its rows in (sample 0: every verdict made before samples was
on the item's only answer) and drops it. A lake has no keys: there the layer's `ADD COLUMN`
is all it takes."""
from __future__ import annotations

import duckdb

from mathprobe.store.one_row import one_row

ASIDE = "verdicts_before_samples"


def _key(con: duckdb.DuckDBPyConnection, table: str) -> list[str] | None:
    row = con.execute(
        "SELECT constraint_column_names FROM duckdb_constraints() WHERE table_name = ? "
        "AND constraint_type = 'PRIMARY KEY' AND database_name = current_database() "
        "AND schema_name = 'main'", [table]).fetchone()
    return list(row[0]) if row else None


def before_layer(con: duckdb.DuckDBPyConnection) -> None:
    """Inside the transaction that applies the SQL layer, before it: a `verdicts` keyed without
    its sample is set aside (the layer then creates the table under the new key)."""
    key = _key(con, "verdicts")
    if key is not None and "sample" not in key:
        con.execute(f"ALTER TABLE verdicts RENAME TO {ASIDE}")


def after_layer(con: duckdb.DuckDBPyConnection) -> None:
    """After the layer (same transaction): the verdicts set aside copied into the new table."""
    (aside,) = one_row(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? "
                       "AND database_name = current_database()", [ASIDE])
    if aside:
        con.execute(f"INSERT INTO verdicts BY NAME SELECT * FROM {ASIDE}")
        con.execute(f"DROP TABLE {ASIDE}")
