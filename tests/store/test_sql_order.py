"""The SQL layer is a folder of files, one object to a file, named after it: the store finds
each file's place by what it mentions (mathprobe/store/sql_order.py), never by a number in its
name, and a file that cannot be placed is an error naming it."""
from __future__ import annotations

import re

import duckdb
import pytest

from mathprobe.paths import SQL_DIR
from mathprobe.store import Store
from mathprobe.store.sql import sql_files, sql_texts
from mathprobe.store.sql_order import SqlLayerError, code, creates, order
from mathprobe.store.stored_sql import COMMENT_RE

TABLE = "CREATE TABLE IF NOT EXISTS base (run_id VARCHAR, x INTEGER);\n"
VIEW = ("-- reads base_total (its comment names last_view, which is no dependency)\n"
        "CREATE OR REPLACE VIEW middle AS SELECT run_id, total FROM base_total;\n"
        "COMMENT ON VIEW middle IS $$Built on base_total, read by last_view.$$;\n")
TOTAL = ("CREATE OR REPLACE MACRO base_total_of(runs) AS TABLE\n"
         "SELECT run_id, sum(x) AS total FROM base GROUP BY run_id;\n"
         "CREATE OR REPLACE VIEW base_total AS FROM base_total_of('run_data');\n")
LAST = "CREATE OR REPLACE VIEW last_view AS FROM middle JOIN range(3) t(i) ON true;\n"
RUN_DATA = "CREATE TABLE IF NOT EXISTS run_data (run_id VARCHAR);\n"


def test_each_file_comes_after_the_files_creating_what_it_mentions():
    files = [("a/last_view.sql", LAST), ("b/middle.sql", VIEW), ("c/base_total.sql", TOTAL),
             ("d/run_data.sql", RUN_DATA), ("e/base.sql", TABLE)]
    applied = [files[i][0] for i in order(files)]
    assert applied == ["d/run_data.sql", "e/base.sql", "c/base_total.sql", "b/middle.sql",
                       "a/last_view.sql"]
    con = duckdb.connect()                      # the order is one the texts run in
    for name in applied:
        con.execute(dict(files)[name])
    assert con.execute("FROM last_view").fetchall() == []
    # where nothing decides, the order listed (the core layer first, as the store lists it)
    independent = [("z.sql", RUN_DATA), ("a.sql", TABLE)]
    assert order(independent) == [0, 1]


def test_a_cycle_is_an_error_naming_its_files():
    one = "CREATE OR REPLACE VIEW one AS FROM two;\n"
    two = "CREATE OR REPLACE VIEW two AS FROM one;\n"
    with pytest.raises(SqlLayerError, match=r"cycle, x/one.sql -> y/two.sql -> x/one.sql"):
        order([("x/one.sql", one), ("y/two.sql", two), ("e/base.sql", TABLE)])


def test_reading_what_no_file_creates_is_an_error_naming_the_file():
    typo = "CREATE OR REPLACE VIEW totals AS SELECT * FROM bsae;\n"
    with pytest.raises(SqlLayerError, match=r"^sql/x/totals.sql: reads bsae, which no SQL file"):
        order([("sql/x/totals.sql", typo), ("e/base.sql", TABLE)])
    macro = "CREATE OR REPLACE VIEW t AS FROM no_such_macro_of('run_data');\n"
    with pytest.raises(SqlLayerError, match=r"t.sql: reads no_such_macro_of"):
        order([("t.sql", macro), ("d/run_data.sql", RUN_DATA)])


def test_an_object_two_files_create_is_an_error():
    with pytest.raises(SqlLayerError, match=r"b.sql: creates base, which a.sql creates too"):
        order([("a.sql", TABLE), ("b.sql", TABLE)])


def test_every_file_of_the_layer_creates_the_object_it_is_named_after():
    """One object to a file: a view with its macro over a set of runs (`<view>_of`), a stored
    figure's table (`<view>_stored`), nothing else; its comments beside it."""
    files = sorted(SQL_DIR.rglob("*.sql"))
    assert len(files) > 80
    for f in files:
        text = f.read_text()
        made = creates(text)
        assert made and f.stem in made, f
        assert set(made) <= {f.stem, f.stem + "_of", f.stem + "_stored"}, (f, made)
        for m in COMMENT_RE.finditer(text):
            assert m.group(2).split(".")[0] == f.stem, (f, m.group(0))
    assert not list(SQL_DIR.rglob("*comments.sql"))


def test_the_store_applies_every_file_after_what_it_mentions():
    files = sql_files()
    seen: set[str] = set()
    made = {f: set(creates(t)) for f, t in zip(files, sql_texts(files))}
    everything = set().union(*made.values())
    for f, text in zip(files, sql_texts(files)):
        words = set(re.findall(r"\b\w+\b", code(text).lower()))
        assert (words & everything) - made[f] <= seen, f
        seen |= made[f]


def test_a_plugin_file_reading_nothing_known_stops_the_open(tmp_path, monkeypatch):
    """A benchmark's file with a typo: the store says which file and what, before applying any."""
    from mathprobe import registry

    bench = registry.get("wemath")
    bad = tmp_path / "wemath_typo.sql"
    bad.write_text("CREATE OR REPLACE VIEW wemath_typo AS FROM wemath_problem_verdict;\n")
    monkeypatch.setattr(type(bench), "sql_files", lambda self: [*sorted(
        (SQL_DIR / "wemath").rglob("*.sql")), bad])
    with pytest.raises(SqlLayerError, match=f"{bad}: reads wemath_problem_verdict, which no SQL "
                                            "file creates"):
        Store(tmp_path / "store.duckdb")
