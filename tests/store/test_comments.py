"""The DuckDB file explains itself: every table, view and column of a real store carries a
comment (what it is, the paper's name for it, the unit), readable by anyone who opens the file,
so whatever is added later must carry one too."""
from __future__ import annotations

import duckdb

from mathprobe.store import Store


def test_every_table_view_and_column_has_a_comment(tmp_path):
    db = tmp_path / "store.duckdb"
    Store(db).close()                    # applies schema, core layer and every benchmark's SQL
    con = duckdb.connect(str(db), read_only=True)      # as a user opening the file would
    try:
        missing = con.execute("""
            SELECT 'table ' || table_name FROM duckdb_tables()
            WHERE NOT internal AND database_name = current_database() AND coalesce(trim(comment), '') = ''
            UNION ALL
            SELECT 'view ' || view_name FROM duckdb_views()
            WHERE NOT internal AND database_name = current_database() AND coalesce(trim(comment), '') = ''
            UNION ALL
            SELECT 'column ' || table_name || '.' || column_name FROM duckdb_columns()
            WHERE NOT internal AND database_name = current_database() AND coalesce(trim(comment), '') = ''
            ORDER BY 1""").fetchall()
        (n_columns,), = con.execute("SELECT count(*) FROM duckdb_columns() WHERE NOT internal "
                                    "AND database_name = current_database()").fetchall()
        (four_d,), = con.execute("SELECT comment FROM duckdb_views() WHERE view_name = "
                                 "'wemath_four_dimensional'").fetchall()
    finally:
        con.close()
    assert [m for (m,) in missing] == []
    assert n_columns > 300
    assert "Table 2" in four_d                            # the paper's name for it


def test_a_view_exports_to_csv_and_parquet(tmp_path):
    """The README's export recipe: `mathprobe sql` runs COPY ... TO on the read-only file."""
    from typer.testing import CliRunner

    from mathprobe.cli.main import app

    db = tmp_path / "store.duckdb"
    Store(db).close()
    for target, fmt in (("t2.csv", "HEADER"), ("t2.parquet", "FORMAT parquet")):
        out = CliRunner().invoke(app, ["sql", "--db", str(db), f"COPY (FROM wemath_four_dimensional)"
                                       f" TO '{tmp_path / target}' ({fmt})"])
        assert out.exit_code == 0, out.output
    assert (tmp_path / "t2.csv").read_text().startswith("run_id,grader,rule,n,ik,ig,cm,rm,")
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM '{tmp_path / 't2.parquet'}'").fetchone() == (0,)


def test_a_process_killed_after_connecting_leaves_a_file_that_opens(tmp_path):
    """Comments are re-applied at every connect only where they changed: duckdb 1.5.5 cannot
    replay a table column's COMMENT ON from the WAL (for tables whose defaults call a function,
    like responses), so a process killed before the next checkpoint would leave a file that
    opens no more."""
    import subprocess
    import sys

    from tests.conftest import REPO

    db = tmp_path / "store.duckdb"
    Store(db).close()
    code = ("import os, sys; from mathprobe.store import Store; s = Store(sys.argv[1]); "
            "s.con.execute(\"INSERT INTO runs (run_id, benchmark, model, backend, setting, status)"
            " VALUES ('r', 'b', 'm', 'k', 's', 'running')\"); os._exit(0)")
    done = subprocess.run([sys.executable, "-c", code, str(db)], cwd=REPO, timeout=120,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "store.duckdb.wal").exists()          # killed: nothing checkpointed
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT run_id FROM runs").fetchall() == [("r",)]
        (comment,), = con.execute("SELECT comment FROM duckdb_columns() WHERE table_name = "
                                  "'responses' AND column_name = 'status'").fetchall()
        assert "infra_failed" in comment
    finally:
        con.close()
