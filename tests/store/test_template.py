"""A new store file is a copy of a cached empty store (mathprobe/store/template.py): it must be the
very store that applying the SQL makes, and a template of another SQL version is never used."""
from __future__ import annotations

import shutil

import duckdb

from mathprobe.store import Store
from mathprobe.store import sql as store_sql
from mathprobe.store.sql import sql_layer

CATALOG = """
    SELECT 'table', table_name, comment, sql FROM duckdb_tables() WHERE NOT internal
    UNION ALL SELECT 'view', view_name, comment, sql FROM duckdb_views() WHERE NOT internal
    UNION ALL SELECT 'column', table_name || '.' || column_name,
                     coalesce(comment, '') || ' ' || data_type || ' ' || is_nullable::VARCHAR,
                     column_default FROM duckdb_columns() WHERE NOT internal
    UNION ALL SELECT 'macro', function_name, comment, macro_definition FROM duckdb_functions()
              WHERE function_type IN ('macro', 'table_macro') AND NOT internal
    UNION ALL SELECT 'sequence', sequence_name, comment, start_value::VARCHAR
              FROM duckdb_sequences()
    UNION ALL SELECT 'index', index_name, comment, sql FROM duckdb_indexes()
    UNION ALL SELECT 'meta', key, value, NULL FROM store_meta
    ORDER BY ALL"""


def catalog(path) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(CATALOG).fetchall()
    finally:
        con.close()


def templates(cache) -> list[str]:
    folder = cache / "store-templates"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_store_from_the_template_is_the_store_the_sql_makes(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MATHPROBE_CACHE_DIR", str(cache))
    first, second = tmp_path / "first.duckdb", tmp_path / "second.duckdb"
    Store(first).close()                      # builds the template, then copies it
    assert len(templates(cache)) == 1
    Store(second).close()                     # a copy of the same template
    assert len(templates(cache)) == 1
    # no usable cache folder (here: a file is in its way): the SQL is applied to the new file
    monkeypatch.setenv("MATHPROBE_CACHE_DIR", str(tmp_path / "not-a-folder" / "cache"))
    (tmp_path / "not-a-folder").write_text("")
    fresh = tmp_path / "fresh.duckdb"
    Store(fresh).close()

    made = catalog(fresh)
    assert len(made) > 400                    # tables, views, columns, macros, comments
    assert {kind for kind, *_ in made} >= {"table", "view", "column", "macro", "sequence"}
    assert ("meta", "sql_layer", sql_layer()[1], None) in made
    assert catalog(first) == made
    assert catalog(second) == made

    store = Store(second)                     # the copy is a working store of its own
    try:
        store.query("INSERT INTO store_meta VALUES ('probe', 'x')")
    finally:
        store.close()
    assert ("meta", "probe", "x", None) not in catalog(first)


def test_a_template_of_another_sql_version_is_not_used(tmp_path, monkeypatch):
    """After an upgrade (here: the core SQL as an older version had it, one comment different)
    new stores get the current SQL, never the old template's."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MATHPROBE_CACHE_DIR", str(cache))
    older = tmp_path / "older-sql"
    shutil.copytree(store_sql.SQL_DIR, older)
    schema = older / "core" / "tables" / "store_meta.sql"
    current = "Facts about the store file itself:"
    assert current in schema.read_text()
    schema.write_text(schema.read_text().replace(current, "Facts of an older version:"))
    monkeypatch.setattr(store_sql, "SQL_DIR", older)
    Store(tmp_path / "old.duckdb").close()
    old_template = templates(cache)
    assert len(old_template) == 1
    monkeypatch.undo()
    monkeypatch.setenv("MATHPROBE_CACHE_DIR", str(cache))

    new = tmp_path / "new.duckdb"
    Store(new).close()
    assert len(templates(cache)) == 2         # a template of its own; the old one is left
    con = duckdb.connect(str(new), read_only=True)
    try:
        (comment,), = con.execute("SELECT comment FROM duckdb_tables() "
                                  "WHERE table_name = 'store_meta'").fetchall()
        (layer,), = con.execute("SELECT value FROM store_meta WHERE key = 'sql_layer'").fetchall()
    finally:
        con.close()
    assert comment.startswith("Facts about the store file itself:")
    assert layer == sql_layer()[1]


def test_an_existing_file_is_never_replaced_by_the_template(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHPROBE_CACHE_DIR", str(tmp_path / "cache"))
    db = tmp_path / "store.duckdb"
    store = Store(db)
    store.query("INSERT INTO store_meta VALUES ('mine', 'kept')")
    store.close()
    Store(db).close()
    assert ("meta", "mine", "kept", None) in catalog(db)
