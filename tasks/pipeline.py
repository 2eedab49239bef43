"""The steps of an evaluation, independent of how they are orchestrated.

Flows call these from Prefect tasks; `mathprobe import` calls the same ones directly, so an
imported response set and a live run go through identical storage and grading.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tasks.backends import Backend
from tasks.items import Completion, Item, Request
from tasks.errors import MathprobeError
from tasks.store import RunSpec, Store

ResponseRow = tuple[str, str, Completion]    # item_id, request_hash, completion


def prepare(store: Store, adapter: ModuleType, data_dir: Path) -> Any:
    """Load and validate the benchmark, and store its items and reference tables."""
    dataset = adapter.load(data_dir)
    store.upsert_items(dataset.items)
    for table, columns in adapter.reference_tables(dataset).items():
        store.replace_table(table, columns)
    return dataset


def build_request(adapter: ModuleType, item: Item, model: str, setting: str,
                  params: dict[str, Any]) -> Request:
    image = Path(item.image_path).read_bytes() if item.image_path else None
    return Request(item_id=item.item_id, model=model, prompt=adapter.build_prompt(item, setting),
                   params=params, image=image, choices=item.choices)


async def respond(backend: Backend, requests: Sequence[Request],
                  sink: Callable[[list[ResponseRow]], Any], *, concurrency: int,
                  batch_size: int = 64,
                  on_done: Callable[[Completion], Any] | None = None) -> dict[str, int]:
    """Send requests with at most `concurrency` in flight; hand results to `sink` in batches.

    Results are flushed as they arrive, so an interrupted shard keeps what it already got.
    """
    sem = asyncio.Semaphore(max(1, concurrency))
    counts: dict[str, int] = {}
    buffer: list[ResponseRow] = []

    async def one(req: Request) -> tuple[Request, Completion]:
        async with sem:
            started = time.perf_counter()
            completion = await backend.complete(req)
            if completion.latency_s is None:
                completion.latency_s = time.perf_counter() - started
            return req, completion

    for next_done in asyncio.as_completed([one(r) for r in requests]):
        req, completion = await next_done
        counts[completion.status] = counts.get(completion.status, 0) + 1
        buffer.append((req.item_id, req.request_hash, completion))
        if on_done is not None:
            on_done(completion)
        if len(buffer) >= batch_size:
            sink(buffer)
            buffer = []
    if buffer:
        sink(buffer)
    return counts


def grade_run(store: Store, adapter: ModuleType, dataset: Any, run_id: str) -> dict[str, int]:
    """Grade every stored answer of the run not yet graded, with each of the adapter's graders."""
    items = dataset.by_id()
    graded: dict[str, int] = {}
    for grader in adapter.GRADERS:
        rows = store.ungraded(run_id, grader)
        verdicts = [(iid, rid, *adapter.grade(grader, items[iid], text)) for rid, iid, text in rows]
        store.write_verdicts(run_id, grader, verdicts)
        graded[grader] = len(verdicts)
    return graded


def import_official(store: Store, adapter: ModuleType, data_dir: Path, file: Path,
                    run_id: str) -> dict[str, int]:
    """Store and grade a response set produced elsewhere, in the benchmark authors' format.

    A row without a response is stored as `missing` (the authors count it wrong). Importing the
    same file again adds nothing.
    """
    file = Path(file)
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file")
    dataset = prepare(store, adapter, data_dir)
    rows = adapter.read_official_results(file, dataset)
    model = f"import:{file.name}"
    store.start_run(RunSpec(run_id, adapter.NAME, model, "import", "official", {}),
                    n_items=len(rows))
    stored = []
    for item, text in rows:
        request = Request(item_id=item.item_id, model=model, prompt=item.question)
        status = "ok" if text is not None else "missing"
        stored.append((item.item_id, request.request_hash,
                       Completion(text=text, status=status, attempts=0,
                                  error=None if text is not None else "no response in the file")))
    new = store.append_responses(run_id, stored)
    graded = grade_run(store, adapter, dataset, run_id)
    store.finish_run(run_id, "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for _, t in rows if t is None), **{f"graded_{g}": n for g, n in graded.items()}}
