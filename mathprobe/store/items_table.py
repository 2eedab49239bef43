"""The benchmark data a store holds for its views to join against: the items as loaded, which
version of each benchmark's files they are (so unchanged data is not loaded again), and the
reference tables a benchmark loads from its data directory (e.g. WE-MATH's knowledge tree)."""
from __future__ import annotations

import json
from collections.abc import Sequence

import duckdb

from mathprobe.items import Item
from mathprobe.store import run_data
from mathprobe.store.bulk import replace_keyed, unnest, unnest_strings
from mathprobe.store.table_access import TableAccess

UPSERT_CHUNK = 256


class ItemsTable(TableAccess):
    """Mixed into `Store` (which gives `write` and `query`)."""

    def upsert_items(self, items: Sequence[Item]) -> None:
        """Store `items` (replacing those with the same ids), UPSERT_CHUNK at a time in one
        transaction, each chunk bound as one JSON document (`unnest_strings`): all 1,740
        WE-MATH items in one statement of list parameters took 0.4-1 s, before a new store's
        first request, and raised a run's peak memory by 26 MB."""
        def work(con: duckdb.DuckDBPyConnection) -> None:
            for start in range(0, len(items), UPSERT_CHUNK):
                chunk = items[start:start + UPSERT_CHUNK]
                select, params = unnest_strings({
                    "benchmark": [i.benchmark for i in chunk],
                    "item_id": [i.item_id for i in chunk],
                    "group_id": [i.group_id for i in chunk],
                    "part": [i.part for i in chunk],
                    "concept": [i.concept for i in chunk],
                    "question": [i.question for i in chunk],
                    "gold": [i.gold for i in chunk],
                    "payload": [json.dumps(i.payload, ensure_ascii=False) for i in chunk],
                })
                replace_keyed(con, "items", ("benchmark", "item_id"),
                              f"SELECT * REPLACE (payload::JSON AS payload) FROM ({select})",
                              params)
            for benchmark in sorted({i.benchmark for i in items}):   # figures of other items
                run_data.invalidate(con, benchmark)
        self.write(work)

    def add_imported_items(self, items: Sequence[Item],
                           tables: dict[str, dict[str, tuple[str, list]]]) -> None:
        """Items a result file defines itself (not in the local data), and their rows of the
        tables `Benchmark.imported_tables` names (keyed by their first column, item_id: rows of
        the same items are replaced). Loading the data again never removes them: `items` is
        only ever upserted, and these tables are not the ones a reload replaces."""
        self.upsert_items(items)
        for table, columns in tables.items():
            first = next(iter(columns))
            select, params = unnest(columns)

            def work(con: duckdb.DuckDBPyConnection, table=table, first=first, select=select,
                     params=params, columns=columns) -> None:
                con.execute(f"DELETE FROM {table} WHERE {first} IN (SELECT {first} FROM "
                            f"(SELECT {select}))", params)
                con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}", params)
                run_data.invalidate(con, items[0].benchmark)
            self.write(work)

    def dataset_fingerprint(self, benchmark: str) -> str | None:
        rows = self.query("SELECT fingerprint FROM loaded_datasets WHERE benchmark = ?", [benchmark])
        return rows[0][0] if rows else None

    def set_dataset_fingerprint(self, benchmark: str, fingerprint: str) -> None:
        self.write(lambda con: replace_keyed(
            con, "loaded_datasets", ("benchmark",),
            "SELECT $benchmark AS benchmark, $fingerprint AS fingerprint, current_timestamp",
            {"benchmark": benchmark, "fingerprint": fingerprint}))

    def has_chance(self, benchmark: str) -> bool:
        return bool(self.query("SELECT 1 FROM item_chance WHERE benchmark = ? LIMIT 1",
                               [benchmark]))

    def replace_chance(self, benchmark: str, rows: Sequence[tuple[str, float]]) -> None:
        """The chance level of each item of `benchmark` (`Benchmark.chance_level`)."""
        select, params = unnest({"item_id": ("VARCHAR", [r[0] for r in rows]),
                                 "chance": ("DOUBLE", [r[1] for r in rows])})

        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute("DELETE FROM item_chance WHERE benchmark = ?", [benchmark])
            if rows:
                con.execute("INSERT INTO item_chance (benchmark, item_id, chance) "
                            f"SELECT $benchmark, * FROM (SELECT {select})",
                            {"benchmark": benchmark, **params})
        self.write(work)

    def replace_table(self, table: str, columns: dict[str, tuple[str, list]]) -> None:
        """Reference tables loaded from the data directory (e.g. the WE-MATH knowledge tree)."""
        select, params = unnest(columns)

        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute(f"DELETE FROM {table}")
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}", params)
            run_data.invalidate(con)     # views join reference tables: no stored figure holds
        self.write(work)
