"""The single writer of model answers: callers on any thread or event loop hand it batches; one
thread commits them in order, so DuckDB's one-writer rule holds however many shards are asking.

If a commit fails (a full disk, a file turned read-only), the writer raises `halt` at once, so
no new request is sent, and spools that batch and every later one (the answers of requests
already in flight) to a JSON-lines file that the next run stores first (`mathprobe.store.spool`,
which says why a spool rather than hold-and-retry). Callers then ask `failure_message()` for the
one line that tells the user what happened and how to continue."""
from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from mathprobe.items import Completion
from mathprobe.store import spool

if TYPE_CHECKING:
    from mathprobe.store.duckdb_store import Store


class ResponseWriter:
    """The single writer of responses: callers on any thread or event loop hand it batches; one
    thread commits them in order, merging what queued up meanwhile into one transaction.

    `submit` returns a Future that resolves once the batch is committed, so a shard can wait
    until its answers are durable before it reports done.
    """

    def __init__(self, store: Store):
        self.store = store
        self.failure: BaseException | None = None   # the first failed commit
        self.halt = threading.Event()                 # set at that failure: ask nothing new
        self.spooled: dict[Path, int] = {}            # spool file -> answers written there
        self.lost = 0                                 # answers no spool would take
        self.spool_error: OSError | None = None
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
            left = list(by_run.items())
            while left and self.failure is None:
                try:
                    self.store.append_responses(*left[0])
                    left.pop(0)
                except Exception as exc:       # the first failure stops new requests
                    self.failure = exc
                    self.halt.set()
            if left:
                self._spool(left)
            for *_, fut in pending:            # answers are committed, or spooled, or counted lost
                fut.set_result(None)

    def _spool(self, batches: list[tuple[str, list]]) -> None:
        n = sum(len(rows) for _, rows in batches)
        try:
            path = spool.write(self.store.path, batches)
            self.spooled[path] = self.spooled.get(path, 0) + n
        except OSError as exc:
            self.lost += n
            self.spool_error = exc

    def failure_message(self) -> str | None:
        """One line: what failed, where the answers in flight went, how to continue."""
        if self.failure is None:
            return None
        reason = getattr(self.failure, "reason", None) or " ".join(str(self.failure).split())
        total = sum(self.spooled.values())
        kept = (f"the {total} answer(s) not yet stored were saved to "
                + ", ".join(f"{p} ({n})" for p, n in self.spooled.items())
                if total else "no answer was waiting to be stored")
        lost = (f"; {self.lost} answer(s) could not be saved anywhere ({self.spool_error})"
                if self.lost else "")
        return (f"writing to {self.store.path} failed ({reason}): stopped asking at once; "
                f"{kept}{lost}. Fix the cause (free space on a full disk, make a read-only file "
                "writable) and run the same command again: it stores the saved answers first "
                "and asks only the rest")

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)
