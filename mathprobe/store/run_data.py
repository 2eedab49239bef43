"""What the store keeps per run so per-run figures stay fast at a million responses: the span of
the run's response ids and its data version (table `run_data`), and figures stored per run
(tables `<view>_stored`, e.g. `wemath_step_accuracy_stored`; `run_data.figures_version` says
at which version each run's rows were computed).

Why: a question about one run must read only that run's rows. DuckDB prunes row groups by the
min/max of a column; response ids are a BIGINT that grows as rows are appended (a run's rows lie
together), run ids are strings with long common prefixes that a zonemap cannot tell apart. So
the views join each run's id span into the scan of `responses`. And reading a figure for all of
hundreds of runs should read rows, not recompute every run: figure views read the stored rows of
runs whose data has not changed since (`stored_runs`) and compute the others live, so a result
is never stale whatever changed a run (a resumed or retried run, a judge's verdicts, a copy,
a new version of the SQL, new benchmark data).

Every write that changes a run goes through `touch` in its own transaction (the single writer:
`mathprobe.store.answers_table`, `items_table`, `copy`); the stored figures are written by
`store_figures` when a run's grading, judging or import finishes (`RunsTable.finish_run`,
`mathprobe.runs.grading`), and for every run when the SQL layer changes (`refresh`, at the write
open that applies it, file or lake: how an old store is migrated). A write that bypasses the
store (raw SQL into the file) is not seen: run `refresh` after one.
"""
from __future__ import annotations

from collections.abc import Sequence

import duckdb

from mathprobe.store.one_row import one_row

STORED_SUFFIX = "_stored"


def touch(con: duckdb.DuckDBPyConnection, run_id: str,
          first: int | None = None, last: int | None = None) -> None:
    """Inside a write that changes `run_id`: widen its span to [first, last] (the response ids
    just written, if any) and raise its data version."""
    row = con.execute("SELECT 1 FROM run_data WHERE run_id = ?", [run_id]).fetchone()
    if row is None:
        if first is None:           # no span yet (a verdict before any response via this store)
            first, last = one_row(con, "SELECT min(response_id), max(response_id) "
                                  "FROM responses WHERE run_id = ?", [run_id])
            if first is None:
                return
        con.execute("INSERT INTO run_data (run_id, first_response_id, last_response_id, version) "
                    "VALUES (?, ?, ?, 1)", [run_id, first, last])
        return
    con.execute("UPDATE run_data SET first_response_id = least(first_response_id, coalesce(?, "
                "first_response_id)), last_response_id = greatest(last_response_id, coalesce(?, "
                "last_response_id)), version = version + 1 WHERE run_id = ?",
                [first, last, run_id])


def rebuild(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None = None) -> None:
    """Inside a write: each run's span from its responses, and a new data version (stored
    figures of these runs no longer count). All runs when `run_ids` is None."""
    if run_ids is None:
        con.execute("DELETE FROM run_data")
        con.execute("INSERT INTO run_data (run_id, first_response_id, last_response_id, version) "
                    "SELECT run_id, min(response_id), max(response_id), 1 FROM responses "
                    "GROUP BY run_id")
        return
    for run_id in run_ids:
        first, last = one_row(con, "SELECT min(response_id), max(response_id) FROM responses "
                              "WHERE run_id = ?", [run_id])
        if first is not None:
            touch(con, run_id, first, last)


def invalidate(con: duckdb.DuckDBPyConnection, benchmark: str | None = None) -> None:
    """Inside a write that changes what figures are computed from (items, reference tables):
    no stored figure of the benchmark's runs (all runs: None) counts any more."""
    if benchmark is None:
        con.execute("UPDATE run_data SET figures_version = NULL WHERE figures_version IS NOT NULL")
    else:
        con.execute("UPDATE run_data SET figures_version = NULL WHERE figures_version IS NOT NULL "
                    "AND run_id IN (SELECT run_id FROM runs WHERE benchmark = ?)", [benchmark])


def stored_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The figure views with stored rows: every table `<view>_stored` of the store."""
    return [t[: -len(STORED_SUFFIX)] for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND suffix(table_name, ?) ORDER BY table_name",
        [STORED_SUFFIX]).fetchall()]


def store_figures(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Inside a write: compute and store the figures of every run whose stored figures are not
    current (each figure view computes exactly those runs live), and mark them stored at their
    present version. Returns the runs stored."""
    todo = [r for (r,) in con.execute(
        "SELECT run_id FROM run_data WHERE figures_version IS DISTINCT FROM version "
        "ORDER BY run_id").fetchall()]
    if not todo:
        return []
    # one run: a constant filter reaches the scans (its span); several: a list
    where, params = (("run_id = $run", {"run": todo[0]}) if len(todo) == 1 else
                     ("run_id IN (SELECT unnest($runs::VARCHAR[]))", {"runs": todo}))
    # Inserted in run order: a run's rows then sit together, so a question about one run reads
    # only their row groups (rows of many runs inserted at once would be interleaved, and every
    # run's question would scan them all: after a new SQL layer stores every run again).
    for view in stored_views(con):
        table = view + STORED_SUFFIX
        con.execute(f"DELETE FROM {table} WHERE {where}", params)
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view} WHERE {where} "
                    "ORDER BY run_id", params)
    con.execute(f"UPDATE run_data SET figures_version = version WHERE {where}", params)
    return todo


def refresh(con: duckdb.DuckDBPyConnection) -> None:
    """Inside the write that applies a new SQL layer: every run's span and version from its
    responses (whatever wrote them: an older version of mathprobe included), and every run's
    figures stored again by this layer's definitions."""
    rebuild(con)
    store_figures(con)
