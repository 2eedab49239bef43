"""Loading a benchmark into the store: its validated items and the reference tables its views
join against, refreshed only when the data files change (their fingerprint)."""
from __future__ import annotations

from pathlib import Path

from mathprobe.contract import Benchmark, Dataset
from mathprobe.store import Store


def prepare(store: Store, bench: Benchmark, data_dir: Path,
            dataset: Dataset | None = None) -> Dataset:
    """Load and validate the benchmark (unless `dataset` is it, loaded already), and store its
    items and reference tables."""
    dataset = dataset if dataset is not None else bench.load(data_dir)
    fresh = store.dataset_fingerprint(bench.name) != dataset.fingerprint
    if fresh:
        store.upsert_items(dataset.items)
        for table, columns in bench.reference_tables(dataset).items():
            store.replace_table(table, columns)
    if bench.has_chance_level and (fresh or not store.has_chance(bench.name)):
        store.replace_chance(bench.name, [(i.item_id, c) for i in dataset.items
                                          if (c := bench.chance_level(i)) is not None])
    if fresh:
        store.set_dataset_fingerprint(bench.name, dataset.fingerprint)
    return dataset
