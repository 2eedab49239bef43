"""What `--db` accepts, and the DDL a DuckLake catalog is given (it has no keys or sequences)."""
import duckdb
import pytest

from mathprobe.errors import MathprobeError
from mathprobe.store import lake
from mathprobe.store.location import parse
from mathprobe.store.sql import sql_texts


def test_db_names_a_file_or_a_lake(tmp_path):
    assert parse(tmp_path / "runs.duckdb").kind == "file"
    sqlite = parse(f"ducklake:sqlite:{tmp_path}/c.sqlite")
    assert (sqlite.catalog, sqlite.target) == ("sqlite", f"{tmp_path}/c.sqlite")
    assert f"DATA_PATH '{tmp_path}/c.sqlite.files/'" in sqlite.attach_sql("lake")
    pg = parse("ducklake:postgres:dbname=x host=h", "s3://bucket/lake")
    assert pg.data_path == "s3://bucket/lake/" and "READ_ONLY" in pg.attach_sql("l", True)
    with pytest.raises(MathprobeError, match="ducklake:sqlite:FILE or"):
        parse("ducklake:mysql:x")
    with pytest.raises(MathprobeError, match="only a DuckLake store"):
        parse(tmp_path / "runs.duckdb", "somewhere")


def test_the_lake_schema_keeps_every_column_and_drops_only_keys_and_sequences():
    texts = sql_texts()
    adapted = lake.statements(texts)
    joined = "\n".join(adapted).upper()
    assert "PRIMARY KEY" not in joined and "NEXTVAL" not in joined and "SEQUENCE" not in joined
    # the same tables with the same columns as on a file
    file_db, lake_db = duckdb.connect(), duckdb.connect()
    for t in texts:
        file_db.execute(t)
    for st in adapted:
        lake_db.execute(st)
    cols = "SELECT table_name, column_name, data_type FROM duckdb_columns() ORDER BY ALL"
    assert file_db.execute(cols).fetchall() == lake_db.execute(cols).fetchall()
    views = "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL"
    assert file_db.execute(views).fetchall() == lake_db.execute(views).fetchall()
