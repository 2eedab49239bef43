"""`mathprobe store copy SRC DST`: move runs between stores (a DuckDB file and a DuckLake, either
way, or two of a kind).

The source is attached read-only to the destination's connection and everything moves in SQL:
per copy, one write on the destination (retried on a lake like any write), so a run is either
all there or absent, and copying again skips the runs the destination already holds (an
interrupted copy resumes). Response ids are the destination's own (new ones, mapped for the
verdicts, log-probabilities and error labels that point at them). The items and reference tables the views
join against come along; the destination must not hold another version of a benchmark's data
(its `loaded_datasets` fingerprint): mixing two would make the views wrong.
"""
from __future__ import annotations

from typing import Any

import duckdb

from mathprobe.errors import MathprobeError
from mathprobe.store import lake, run_data
from mathprobe.store.duckdb_store import Store
from mathprobe.store.location import Location, _quote
from mathprobe.store.one_row import one_row

RUN_TABLES = ("runs", "responses", "verdicts", "token_logprobs", "probe_scores", "error_labels")
# derived per run and kept by the destination itself (run_data.rebuild / store_figures)
NOT_COPIED = (*RUN_TABLES, "lake_writes", "run_data")
SRC = "copy_src"


def _attach(con: duckdb.DuckDBPyConnection, loc: Location) -> None:
    if loc.is_lake:
        lake.load_extension(con, "ducklake")
        lake.load_extension(con, lake.SCANNERS[loc.lake_catalog])
        con.execute(loc.attach_sql(SRC, read_only=True))
    else:
        con.execute(f"ATTACH {_quote(loc.target)} AS {SRC} (READ_ONLY)")


def _tables(con: duckdb.DuckDBPyConnection, database: str) -> list[str]:
    return [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main' "
        "ORDER BY table_name", [database]).fetchall()]


def copy_runs(src: Location, dst: Store, run_ids: list[str] | None = None) -> dict[str, Any]:
    """Copy `run_ids` (default: all) from `src` into `dst`; returns what was copied/skipped."""
    if src.key == dst.location.key:
        raise MathprobeError(f"store copy: source and destination are the same store ({src})")
    if not src.exists():
        raise MathprobeError(f"store copy: {src} does not exist")
    con = dst.con
    with dst._lock:
        try:
            _attach(con, src)
        except duckdb.Error as exc:
            raise MathprobeError(f"store copy: cannot open {src} for reading: "
                                 f"{str(exc).splitlines()[0]}") from exc
        try:
            return dst.write(lambda c: _copy(c, dst, run_ids))
        finally:
            con.execute(f"DETACH {SRC}")


def _current(con: duckdb.DuckDBPyConnection) -> str:
    return one_row(con, "SELECT current_database()")[0]


def _copy(con: duckdb.DuckDBPyConnection, dst: Store, run_ids: list[str] | None) -> dict[str, Any]:
    in_src = [r[0] for r in con.execute(f"SELECT run_id FROM {SRC}.main.runs ORDER BY run_id"
                                        ).fetchall()]
    wanted = in_src if run_ids is None else list(run_ids)
    missing = sorted(set(wanted) - set(in_src))
    if missing:
        raise MathprobeError(f"store copy: no run(s) {missing} in the source")
    present = {r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()}
    todo = [r for r in wanted if r not in present]
    skipped = [r for r in wanted if r in present]
    _copy_reference_data(con, todo)
    if not todo:
        return {"copied": [], "skipped": skipped, "responses": 0}
    con.execute("CREATE OR REPLACE TEMP TABLE copy_ids AS SELECT response_id AS old_id, "
                f"row_number() OVER (ORDER BY response_id) AS k FROM {SRC}.main.responses "
                "WHERE run_id IN (SELECT unnest($runs::VARCHAR[]))", {"runs": todo})
    (n,) = one_row(con, "SELECT count(*) FROM copy_ids")
    ids = dst._new_response_ids(con, n)
    params = {"runs": todo, "ids": ids}
    by_id = {"ids": ids}
    con.execute(f"INSERT INTO runs BY NAME SELECT * FROM {SRC}.main.runs "
                "WHERE run_id IN (SELECT unnest($runs::VARCHAR[]))", {"runs": todo})
    con.execute(f"""INSERT INTO responses BY NAME
                    SELECT r.* REPLACE (($ids::BIGINT[])[m.k] AS response_id)
                    FROM {SRC}.main.responses r JOIN copy_ids m ON m.old_id = r.response_id""",
                by_id)
    con.execute(f"""INSERT INTO verdicts BY NAME
                    SELECT v.* REPLACE (($ids::BIGINT[])[m.k] AS response_id)
                    FROM {SRC}.main.verdicts v JOIN copy_ids m ON m.old_id = v.response_id
                    WHERE v.run_id IN (SELECT unnest($runs::VARCHAR[]))""", params)
    con.execute(f"""INSERT INTO token_logprobs BY NAME
                    SELECT t.* REPLACE (($ids::BIGINT[])[m.k] AS response_id)
                    FROM {SRC}.main.token_logprobs t JOIN copy_ids m ON m.old_id = t.response_id""",
                by_id)
    con.execute(f"INSERT INTO probe_scores BY NAME SELECT * FROM {SRC}.main.probe_scores "
                "WHERE run_id IN (SELECT unnest($runs::VARCHAR[]))", {"runs": todo})
    if "error_labels" in _tables(con, SRC):         # a store made before error labels has none
        # the labels of the copied runs, on their answers' new ids (the labeller's reply too,
        # where its run is copied)
        con.execute(f"""INSERT INTO error_labels BY NAME
                        SELECT l.* REPLACE (($ids::BIGINT[])[m.k] AS response_id,
                                            ($ids::BIGINT[])[r.k] AS label_response_id)
                        FROM {SRC}.main.error_labels l
                        JOIN copy_ids m ON m.old_id = l.response_id
                        LEFT JOIN copy_ids r ON r.old_id = l.label_response_id
                        WHERE l.run_id IN (SELECT unnest($runs::VARCHAR[]))""", params)
    con.execute("DROP TABLE copy_ids")
    run_data.rebuild(con, todo)       # the copied runs' spans of the destination's ids
    run_data.store_figures(con)
    return {"copied": todo, "skipped": skipped, "responses": n}


def _copy_reference_data(con: duckdb.DuckDBPyConnection, runs: list[str]) -> None:
    """Items, `loaded_datasets` and the benchmarks' reference tables, where the destination
    lacks them; refuses to mix two versions of a benchmark's data."""
    src_fp = dict(con.execute(f"SELECT benchmark, fingerprint FROM {SRC}.main.loaded_datasets"
                              ).fetchall())
    dst_fp = dict(con.execute("SELECT benchmark, fingerprint FROM loaded_datasets").fetchall())
    benchmarks = {r[0] for r in con.execute(
        f"SELECT DISTINCT benchmark FROM {SRC}.main.runs "
        "WHERE run_id IN (SELECT unnest($runs::VARCHAR[]))", {"runs": runs or [""]}).fetchall()}
    clash = sorted(b for b in benchmarks if b in dst_fp and b in src_fp and dst_fp[b] != src_fp[b])
    if clash:
        raise MathprobeError(f"store copy: the destination holds other versions of the data of "
                             f"{clash} (loaded_datasets fingerprints differ); copy into a store "
                             "loaded from the same data files")
    dst_tables = set(_tables(con, _current(con)))
    for table in _tables(con, SRC):
        if (table in NOT_COPIED or table not in dst_tables
                or table.endswith(run_data.STORED_SUFFIX)):
            continue
        if table == "loaded_datasets":
            con.execute(f"INSERT INTO loaded_datasets BY NAME SELECT * FROM {SRC}.main.loaded_datasets "
                        "WHERE benchmark NOT IN (SELECT benchmark FROM loaded_datasets)")
        else:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM ("
                        f"SELECT * FROM {SRC}.main.{table} EXCEPT SELECT * FROM {table})")
