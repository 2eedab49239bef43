"""The steps of an evaluation, independent of how they are orchestrated.

Flows call these from Prefect tasks; `mathprobe import` calls the same ones directly, so an
imported response set and a live run go through identical storage and grading.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from types import ModuleType
from typing import Any

from tasks import prices
from tasks.backends import Backend
from tasks.items import Completion, Item, Request
from tasks.errors import MathprobeError
from tasks.store import RunSpec, Store

ResponseRow = tuple[str, str, Completion]    # item_id, request_hash, completion


def prepare(store: Store, adapter: ModuleType, data_dir: Path) -> Any:
    """Load and validate the benchmark, and store its items and reference tables."""
    dataset = adapter.load(data_dir)
    if store.dataset_fingerprint(adapter.NAME) != dataset.fingerprint:
        store.upsert_items(dataset.items)
        for table, columns in adapter.reference_tables(dataset).items():
            store.replace_table(table, columns)
        store.set_dataset_fingerprint(adapter.NAME, dataset.fingerprint)
    return dataset


@functools.lru_cache(maxsize=4096)
def read_image(path: str) -> bytes:
    """Image bytes, read once per process (WE-MATH testmini's images total about 45 MB)."""
    return Path(path).read_bytes()


def build_request(adapter: ModuleType, item: Item, model: str, setting: str,
                  params: dict[str, Any]) -> Request:
    """The request for an item: the adapter's prompt, and its image (the adapter's
    `request_image(item, setting)` where the image depends on the setting)."""
    prompt = adapter.build_prompt(item, setting)
    path = (adapter.request_image(item, setting) if hasattr(adapter, "request_image")
            else item.image_path)
    return Request(item_id=item.item_id, model=model, prompt=prompt, params=params,
                   image=read_image(path) if path else None, choices=item.choices)


class Budget:
    """A run's spending cap, shared by its shards: once reached, no new request is issued."""

    def __init__(self, max_cost: float | None, spent: float = 0.0):
        self.max_cost, self.spent = max_cost, spent
        self._lock = threading.Lock()

    def add(self, cost: float | None) -> None:
        if cost:
            with self._lock:
                self.spent += cost

    @property
    def exhausted(self) -> bool:
        return self.max_cost is not None and self.spent >= self.max_cost


async def respond(backend: Backend, requests: Sequence[Request],
                  submit: Callable[[list[ResponseRow]], Future], *,
                  concurrency: int | None = None, limits: Sequence[asyncio.Semaphore] = (),
                  budget: Budget | None = None, batch_size: int = 64, flush_s: float = 1.0,
                  on_done: Callable[[str, Completion], Any] | None = None) -> dict[str, int]:
    """Send requests, each holding every semaphore of `limits` (shared with other shards: the
    run's and the provider's cap) or, without them, at most `concurrency` in flight; hand
    results to the writer in batches.

    Batches go out every `batch_size` results or `flush_s` seconds, whichever comes first, so an
    interrupted run loses at most the answers of the last second. Returns counts by status, plus
    `not_asked` for requests held back because the budget ran out. Returns once every batch is
    committed.
    """
    sems = list(limits) or [asyncio.Semaphore(max(1, concurrency or 1))]
    counts: dict[str, int] = {}
    buffer: list[ResponseRow] = []
    commits: list[Future] = []
    last_flush = time.monotonic()

    async def one(req: Request) -> tuple[Request, Completion | None]:
        async with contextlib.AsyncExitStack() as held:
            for sem in sems:                     # always in the same order: no deadlock
                await held.enter_async_context(sem)
            if budget is not None and budget.exhausted:
                return req, None
            started = time.perf_counter()
            completion = await backend.complete(req)
            if completion.latency_s is None:
                completion.latency_s = time.perf_counter() - started
            if completion.cost_usd is None:
                completion.cost_usd = prices.cost(backend.kind, backend.model,
                                                  completion.input_tokens, completion.output_tokens)
            if budget is not None:
                budget.add(completion.cost_usd)
            return req, completion

    def flush() -> None:
        nonlocal buffer, last_flush
        if buffer:
            commits.append(submit(buffer))
            buffer = []
        last_flush = time.monotonic()

    for next_done in asyncio.as_completed([one(r) for r in requests]):
        req, completion = await next_done
        if completion is None:
            counts["not_asked"] = counts.get("not_asked", 0) + 1
            continue
        counts[completion.status] = counts.get(completion.status, 0) + 1
        buffer.append((req.item_id, req.request_hash, completion))
        if on_done is not None:
            on_done(req.item_id, completion)
        if len(buffer) >= batch_size or time.monotonic() - last_flush >= flush_s:
            flush()
    flush()
    for fut in commits:
        await asyncio.wrap_future(fut)
    return counts


def send(store: Store, run_id: str, spec: str, make_backend: Callable[[], Backend],
         requests: Sequence[Request], *, in_flight: int, close: bool = True,
         budget: Budget | None = None,
         on_done: Callable[[str, Completion], Any] | None = None) -> dict[str, int]:
    """Send a run's requests from any thread: on the process's shared event loop, under the
    run's cap (`in_flight`) and the provider's, answers stored by the store's single writer.
    `make_backend` runs on that loop; `close` closes the backend afterwards."""
    from tasks import runtime
    from tasks.backends import parse_spec, provider_limit

    kind, _ = parse_spec(spec)
    writer = store.writer()

    async def go() -> dict[str, int]:
        backend = make_backend()
        limits = [runtime.semaphore("run", run_id, in_flight),
                  runtime.semaphore("provider", kind, provider_limit(spec))]
        try:
            return await respond(backend, requests, lambda rows: writer.submit(run_id, rows),
                                 limits=limits, budget=budget, on_done=on_done)
        finally:
            if close:
                await backend.aclose()

    return runtime.run(go())


def grade_run(store: Store, adapter: ModuleType, dataset: Any, run_id: str,
              items: dict[str, Item] | None = None) -> dict[str, int]:
    """Grade every stored answer of the run not yet graded, with each of the adapter's rule
    graders (`adapter.GRADERS`). A grader may leave an answer undecided (correct is None): it
    then gets no verdict from that grader, for a later stage (e.g. a judge) to decide.
    `items` overrides the dataset's items (an imported file may carry its own gold answers)."""
    items = {**dataset.by_id(), **(items or {})}
    graded: dict[str, int] = {}
    for grader in adapter.GRADERS:
        rows = store.ungraded(run_id, grader)
        verdicts = [(iid, rid, *adapter.grade(grader, items[iid], text)) for rid, iid, text in rows]
        store.write_verdicts(run_id, grader, [v for v in verdicts if v[3] is not None])
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
    graded = grade_run(store, adapter, dataset, run_id, items={i.item_id: i for i, _ in rows})
    store.finish_run(run_id, "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for _, t in rows if t is None), **{f"graded_{g}": n for g, n in graded.items()}}
