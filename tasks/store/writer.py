"""The single writer of model answers: callers on any thread or event loop hand it batches; one
thread commits them in order, so DuckDB's one-writer rule holds however many shards are asking."""
from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

from tasks.items import Completion

if TYPE_CHECKING:
    from tasks.store.duckdb_store import Store


class ResponseWriter:
    """The single writer of responses: callers on any thread or event loop hand it batches; one
    thread commits them in order, merging what queued up meanwhile into one transaction.

    `submit` returns a Future that resolves once the batch is committed, so a shard can wait
    until its answers are durable before it reports done.
    """

    def __init__(self, store: "Store"):
        self.store = store
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="duckdb-writer", daemon=True)
        self._thread.start()

    def submit(self, run_id: str, rows: list[tuple[str, str, Completion]]) -> Future:
        fut: Future = Future()
        self._queue.put((run_id, rows, fut))
        return fut

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            pending = [first]
            while True:        # merge whatever else is waiting (bounded) into this commit
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)
                    break
                pending.append(nxt)
                if sum(len(p[1]) for p in pending) >= 2000:
                    break
            by_run: dict[str, list] = {}
            for run_id, rows, _ in pending:
                by_run.setdefault(run_id, []).extend(rows)
            try:
                for run_id, rows in by_run.items():
                    self.store.append_responses(run_id, rows)
            except BaseException as exc:   # hand the failure to every waiter
                for *_, fut in pending:
                    fut.set_exception(exc)
                continue
            for *_, fut in pending:
                fut.set_result(None)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)
