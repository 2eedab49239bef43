"""A stored figure is declared by one line, `-- @stored <view>` after its macro, and the store
writes out its table, view and comments (mathprobe/store/stored_sql.py). Stores made before, when
each table was written out by hand, keep opening with their tables and rows; making a table
never computes a figure."""
from __future__ import annotations

import duckdb
import pytest

from mathprobe import registry
from mathprobe.runs import prepare
from mathprobe.store import Store
from mathprobe.store.sql import sql_files
from mathprobe.store.stored_sql import ddl, expand, stored_views
from tests.store.test_stored_figures import _run, figures, live

# The stored tables as the SQL files wrote them out by hand before the directive (commit
# c150b39): what every store made until then holds.
HAND_WRITTEN = """
CREATE TABLE IF NOT EXISTS wemath_four_dimensional_stored (
    run_id VARCHAR, grader VARCHAR, rule VARCHAR,
    n BIGINT, ik BIGINT, ig BIGINT, cm BIGINT, rm BIGINT,
    ik_rate DOUBLE, ig_rate DOUBLE, cm_rate DOUBLE, rm_rate DOUBLE, score DOUBLE);
CREATE TABLE IF NOT EXISTS wemath_step_accuracy_stored (
    run_id VARCHAR, grader VARCHAR, s1 DOUBLE, s2 DOUBLE, s3 DOUBLE);
CREATE TABLE IF NOT EXISTS wemath_concept_accuracy_stored (
    run_id VARCHAR, grader VARCHAR, concept VARCHAR, n BIGINT, correct BIGINT, accuracy DOUBLE);
CREATE TABLE IF NOT EXISTS wemath_figure_units_stored (
    run_id VARCHAR, grader VARCHAR, unit VARCHAR, item VARCHAR, cell VARCHAR,
    num DOUBLE, den DOUBLE);
CREATE TABLE IF NOT EXISTS conceptmath_concept_accuracy_stored (
    run_id VARCHAR, grader VARCHAR, system VARCHAR, level INTEGER, concept VARCHAR,
    n BIGINT, correct BIGINT, accuracy DOUBLE);
CREATE TABLE IF NOT EXISTS conceptmath_mink_items_stored (
    run_id VARCHAR, item_id VARCHAR, n_tokens BIGINT, k INTEGER, min_k DOUBLE, min_k_prob DOUBLE);
CREATE TABLE IF NOT EXISTS contamination_rouge_concept_stored (
    run_id VARCHAR, system VARCHAR, level INTEGER, concept VARCHAR, n BIGINT,
    rouge_l DOUBLE, rouge_l_x100 DOUBLE);
CREATE TABLE IF NOT EXISTS contamination_mink_concept_stored (
    run_id VARCHAR, system VARCHAR, level INTEGER, concept VARCHAR, n BIGINT,
    min_k DOUBLE, min_k_prob DOUBLE);
CREATE TABLE IF NOT EXISTS conceptmath_figure_units_stored (
    run_id VARCHAR, grader VARCHAR, unit VARCHAR, item VARCHAR, cell VARCHAR,
    num DOUBLE, den DOUBLE);
CREATE TABLE IF NOT EXISTS cmmath_official_scores_stored (
    run_id VARCHAR, grader VARCHAR, breakdown VARCHAR, key VARCHAR, position INTEGER,
    n BIGINT, correct BIGINT, score DOUBLE);
CREATE TABLE IF NOT EXISTS cmmath_figure_units_stored (
    run_id VARCHAR, grader VARCHAR, unit VARCHAR, item VARCHAR, cell VARCHAR,
    num DOUBLE, den DOUBLE);
"""


def declared() -> list[str]:
    """The views the store's SQL files declare stored."""
    return stored_views([f.read_text() for f in sql_files()])


COLUMNS = ("SELECT table_name, column_index, column_name, data_type FROM duckdb_columns() "
           "WHERE suffix(table_name, '_stored') ORDER BY ALL")


@pytest.fixture(scope="module")
def new_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("stored") / "new.duckdb"
    Store(db).close()
    con = duckdb.connect(str(db), read_only=True)
    yield con
    con.close()


def test_every_stored_table_has_the_columns_it_had_when_written_by_hand(new_store):
    by_hand = duckdb.connect()
    by_hand.execute(HAND_WRITTEN)
    assert new_store.execute(COLUMNS).fetchall() == by_hand.execute(COLUMNS).fetchall()
    assert len(declared()) == 11


def test_each_stored_column_carries_its_view_columns_comment(new_store):
    rows = new_store.execute("""
        SELECT t.table_name, t.comment, c.column_name, c.comment, v.comment
        FROM duckdb_tables() t
        JOIN duckdb_columns() c USING (table_name)
        LEFT JOIN duckdb_columns() v ON v.table_name = left(t.table_name, -7)
                                    AND v.column_name = c.column_name
        WHERE suffix(t.table_name, '_stored')""").fetchall()
    assert len(rows) == 81
    for table, table_comment, column, comment, view_comment in rows:
        assert table_comment.startswith(f"The rows of {table[:-7]} stored per run")
        assert comment and comment == view_comment, (table, column)


def test_making_a_stored_table_computes_no_figure():
    """The table is made from the macro's plan: an empty result, whatever the store holds
    (a million responses included: perf figures in the report)."""
    s = Store(":memory:")
    try:
        for view in declared():
            create = duckdb.extract_statements(ddl(view))[0].query
            assert f"CREATE TABLE IF NOT EXISTS {view}_stored AS FROM {view}_of(" in create
            (_, plan), = s.query("EXPLAIN " + create.replace(f"{view}_stored", "plan_check"))
            operators = [w for w in plan.split() if w.isupper() and "_" in w]
            assert operators == ["CREATE_TABLE_AS", "EMPTY_RESULT"], (view, plan)
    finally:
        s.close()


def test_the_directive_is_written_out_once_and_leaves_other_texts_alone():
    macro = "CREATE OR REPLACE MACRO f_of(runs) AS TABLE SELECT 1 AS run_id;\n-- @stored f\n"
    comments = ("COMMENT ON VIEW f IS 'F.';\nCOMMENT ON COLUMN f.run_id IS 'The run.';\n"
                "COMMENT ON COLUMN g.x IS 'Not stored.';\n")
    other = "CREATE VIEW g AS SELECT 1 AS x; -- @stored is only a directive on its own line\n"
    out = expand([macro, other, comments])
    assert out[1] == other
    assert "@stored" not in out[0] and out[0].count("CREATE TABLE IF NOT EXISTS f_stored") == 1
    assert out[2].startswith(comments)
    assert "COMMENT ON COLUMN f_stored.run_id IS 'The run.';" in out[2]
    assert "g_stored" not in out[2] and expand(out) == out


def test_a_store_with_hand_written_tables_opens_and_reads_the_same(tmp_path, data_dir):
    """A store made before (its stored tables written by hand, its rows stored) opened by this
    version: the same tables (not made again), their rows stored again by this SQL, figures
    unchanged."""
    bench = registry.get("wemath")
    db = tmp_path / "old.duckdb"
    s = Store(db)
    dataset = prepare(s, bench, data_dir)
    _run(s, bench, dataset, "a", 0)
    _run(s, bench, dataset, "b", 1, fail_every=5)
    before = {r: figures(s, r) for r in ("a", "b")}
    s.close()
    con = duckdb.connect(str(db))
    for view in declared():
        con.execute(f"ALTER TABLE {view}_stored RENAME TO {view}_made_now")
    con.execute(HAND_WRITTEN)
    for view in declared():
        con.execute(f"INSERT INTO {view}_stored FROM {view}_made_now")
        con.execute(f"DROP TABLE {view}_made_now")
    con.execute("UPDATE store_meta SET value = 'an older version' WHERE key = 'sql_layer'")
    # a marker no store writes (a run the store does not know): gone if a table is made again
    con.execute("INSERT INTO wemath_step_accuracy_stored VALUES ('marker', 'x', 0, 0, 0)")
    con.close()

    s = Store(db)
    try:
        assert s.query("SELECT grader FROM wemath_step_accuracy_stored "
                       "WHERE run_id = 'marker'") == [("x",)]
        by_hand = duckdb.connect()
        by_hand.execute(HAND_WRITTEN)
        assert s.query(COLUMNS) == by_hand.execute(COLUMNS).fetchall()
        assert s.query("SELECT run_id FROM stored_runs ORDER BY 1") == [("a",), ("b",)]
        assert s.query("SELECT count(DISTINCT run_id) FROM wemath_figure_units_stored") == [(2,)]
        for r in ("a", "b"):
            assert figures(s, r) == before[r] == live(s, r)
    finally:
        s.close()


def test_a_lake_store_gets_the_same_stored_tables_and_stores_a_finished_run(tmp_path, data_dir):
    """DuckLake (a SQLite catalog here) applies the written-out texts too: the same stored
    tables and their comments, and a finished run's figures stored and read as on a file."""
    bench = registry.get("wemath")
    s = Store(f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}")
    try:
        dataset = prepare(s, bench, data_dir)
        _run(s, bench, dataset, "a", 0)
        by_hand = duckdb.connect()
        by_hand.execute(HAND_WRITTEN)
        where = "AND database_name = current_database()"
        assert s.query(COLUMNS.replace("ORDER BY", where + " ORDER BY")) == \
            by_hand.execute(COLUMNS).fetchall()
        comments = s.query("SELECT table_name, comment FROM duckdb_tables() "
                           f"WHERE suffix(table_name, '_stored') {where}")
        assert len(comments) == 11 and all("stored per run" in c for _, c in comments)
        assert s.query("SELECT count(*) FROM duckdb_columns() WHERE suffix(table_name, "
                       f"'_stored') AND coalesce(comment, '') = '' {where}") == [(0,)]
        assert s.query("SELECT run_id FROM stored_runs") == [("a",)]
        assert s.query("SELECT count(*) FROM wemath_figure_units_stored")[0][0] > 0
        assert figures(s, "a") == live(s, "a")
    finally:
        s.close()
