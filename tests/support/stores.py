"""Reading a store file the way a user's second process would, after the test's flows: the
process's open stores closed first (a DuckDB file has one writer), then one read-only query."""
from __future__ import annotations

import duckdb


def query(db, sql: str, params=None) -> list[tuple]:
    from mathprobe.store import close_all

    close_all()
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()
