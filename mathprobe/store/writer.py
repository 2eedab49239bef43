"""The single writer of model answers: callers on any thread or event loop hand it batches; one
thread commits them in order, so DuckDB's one-writer rule holds however many shards are asking.

If a commit fails (a full disk, a file turned read-only), the writer raises `halt` at once, so
no new request is sent, and spools that batch and every later one (the answers of requests
already in flight) to a JSON-lines file that the next run stores first (`mathprobe.store.spool`,
which says why a spool rather than hold-and-retry). When no spool location takes them either
(the spool's disk full too), the answers are not dropped: they are held in memory and offered
again, to the store first and then to a spool, every RETRY_S for up to `hold_s()` seconds
(MATHPROBE_FULL_DISK_WAIT_S, default 300), and the command says so (`say`), with the time it
waits: room made meanwhile saves them. Only what is still held when that time is up (or the
command is stopped) is lost, and counted. Callers then ask `failure_message()` for the one line
that tells the user what happened, what was kept where, and how to continue."""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from mathprobe.errors import StoreWriteError
from mathprobe.items import Completion
from mathprobe.store import spool

if TYPE_CHECKING:
    from mathprobe.store.duckdb_store import Store

HOLD_S = 300.0        # answers no place takes are held this long at most ...
RETRY_S = 1.0         # ... and offered again this often


def hold_s() -> float:
    from mathprobe import settings

    value = settings.get("MATHPROBE_FULL_DISK_WAIT_S")
    return HOLD_S if value is None else value


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
        self.received: dict[str, int] = {}            # answers handed in, by run
        self.committed = 0                            # ... stored in the store
        self.spooled: dict[Path, int] = {}            # spool file -> answers written there
        self.late = 0                                 # held, then stored once room came back
        self.lost = 0                                 # answers no place took in time
        self.spool_error: OSError | None = None
        self.say: Callable[[str], None] = lambda _message: None
        self._deadline: float | None = None           # when holding answers ends
        self._closing = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="duckdb-writer", daemon=True)
        self._thread.start()

    def submit(self, run_id: str, rows: list[tuple[str, str, Completion]]) -> Future:
        fut: Future = Future()
        self.received[run_id] = self.received.get(run_id, 0) + len(rows)
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
            if self.failure is None:
                try:
                    self._commit(left)
                except Exception as exc:       # the first failure stops new requests
                    self.failure = exc
                    self.halt.set()
            if left:
                self._keep(left)
            for *_, fut in pending:            # answers are committed, or spooled, or counted lost
                fut.set_result(None)

    def _commit(self, batches: list[tuple[str, list]]) -> None:
        """Commit the batches one by one, taking each off the list once it is stored."""
        while batches:
            self.store.append_responses(*batches[0])
            self.committed += len(batches.pop(0)[1])

    def _keep(self, batches: list[tuple[str, list]]) -> None:
        """Answers the store did not take: to a spool; else held in memory and offered again
        (the store, then a spool) until the hold's deadline, one for the whole command."""
        n = sum(len(rows) for _, rows in batches)
        error = self._to_spool(batches)
        if error is None:
            return
        if self._deadline is None:
            wait = hold_s()
            self._deadline = time.monotonic() + wait
            self.say(f"no place takes the answers now (the store's disk and every spool "
                     f"location: {error.strerror or error}): {n} answer(s) held in memory, "
                     "with any still on their way; free space (or set MATHPROBE_SPOOL_DIR to a "
                     f"folder with room) within {wait:.0f} s and they are saved, tried every "
                     f"{RETRY_S:.0f} s; stopping the command now loses them")
        while time.monotonic() < self._deadline and not self._closing.wait(RETRY_S):
            done = sum(len(rows) for _, rows in batches)
            try:
                self._commit(batches)
            except Exception:                  # noqa: BLE001 - still no room: try a spool
                pass
            self.late += done - sum(len(rows) for _, rows in batches)
            if not batches or (error := self._to_spool(batches)) is None:
                self._deadline = None          # saved: a later hold waits its full time
                return
        self.lost += sum(len(rows) for _, rows in batches)
        self.spool_error = error

    def _to_spool(self, batches: list[tuple[str, list]]) -> OSError | None:
        """Spool the batches (all of them or none); the error if no location took them."""
        n = sum(len(rows) for _, rows in batches)
        try:
            path = spool.write(self.store.path, batches)
        except OSError as exc:
            return exc
        self.spooled[path] = self.spooled.get(path, 0) + n
        batches.clear()
        return None

    def no_room(self, error: BaseException) -> None:
        """`spool.check_room` found no room for what was about to be asked: ask nothing more
        (every sender of the store stops; answers on their way are kept as after a failed
        commit), and say so once the senders are done."""
        if self.failure is None:
            self.failure = error
        self.halt.set()

    def failure_message(self) -> str | None:
        """One line: what failed, what this command's answers became (stored, saved where,
        lost), how to continue."""
        if self.failure is None:
            return None
        received = sum(self.received.values())
        text = str(self.failure)
        if isinstance(self.failure, StoreWriteError) and ": no room to keep answers" in text:
            if not received:
                return text
            head = text.split("; nothing", 1)[0] + "; stopped asking"
        else:
            reason = getattr(self.failure, "reason", None) or " ".join(str(self.failure).split())
            head = f"writing to {self.store.path} failed ({reason}): stopped asking at once"
        total = sum(self.spooled.values())
        kept = [f"{self.committed} stored"]
        if self.late:
            kept.append(f"of them {self.late} once room came back")
        if total:
            kept.append(f"{total} saved to " + ", ".join(f"{p} ({n})"
                                                          for p, n in self.spooled.items()))
        if self.lost:
            kept.append(f"{self.lost} could not be saved anywhere within {hold_s():.0f} s and "
                        f"are lost ({self.spool_error})")
        return (f"{head}; of the {received} answer(s) this command received, "
                f"{', '.join(kept)}. Fix the cause (free space on a full disk, make a read-only "
                "file writable) and run the same command again: it stores the saved answers "
                "first and asks only the rest")

    def close(self) -> None:
        self._closing.set()                    # a hold ends now: what it holds is counted lost
        self._queue.put(None)
        self._thread.join(timeout=30)
