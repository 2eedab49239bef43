"""Loading a benchmark into the store: its validated items and the reference tables its views
join against, refreshed only when the data files change (their fingerprint)."""
from __future__ import annotations

from pathlib import Path

from mathprobe.tasks.contract import Benchmark, Dataset
from mathprobe.tasks.store import Store


def prepare(store: Store, bench: Benchmark, data_dir: Path) -> Dataset:
    """Load and validate the benchmark, and store its items and reference tables."""
    dataset = bench.load(data_dir)
    if store.dataset_fingerprint(bench.name) != dataset.fingerprint:
        store.upsert_items(dataset.items)
        for table, columns in bench.reference_tables(dataset).items():
            store.replace_table(table, columns)
        store.set_dataset_fingerprint(bench.name, dataset.fingerprint)
    return dataset
