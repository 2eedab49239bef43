"""Opening a store: a read-only open brings old views up to date when it may write, and the
spool a dead process left is stored first, a torn last line (the process died while
appending) skipped."""
from __future__ import annotations

import json

from mathprobe.items import Completion
from mathprobe.store import close_all, open_store, spool
from mathprobe.store.sql import sql_layer


def test_a_read_only_open_refreshes_views_of_an_older_version(tmp_path):
    db = tmp_path / "s.duckdb"
    open_store(db).query("UPDATE store_meta SET value = 'an older SQL layer'")
    close_all()
    store = open_store(db, read_only=True)
    assert store.read_only and not store.stale_views
    assert store.query("SELECT value FROM store_meta") == [(sql_layer()[1],)]
    close_all()


def test_a_spool_is_stored_first_and_a_torn_line_skipped(tmp_path):
    db = tmp_path / "s.duckdb"
    open_store(db)
    close_all()
    written = spool.write(db, [("r", [("a", "h1", Completion(text="A")),
                                      ("b", "h2", Completion(text="B", input_tokens=3))])])
    assert written == spool.paths(db)[0]
    with written.open("a") as f:                       # a batch cut off by kill -9
        f.write(json.dumps({"run_id": "r", "item_id": "c"})[:20])
    store = open_store(db)
    assert store.recovered == (2, [written]) and not written.exists()
    assert store.query("SELECT item_id, response, input_tokens FROM responses ORDER BY 1") == \
        [("a", "A", None), ("b", "B", 3)]
    close_all()
