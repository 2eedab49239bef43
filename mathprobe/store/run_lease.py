"""One live writer per run id: a run's claim in a lake's catalog, with a heartbeat.

A DuckDB file admits one writing process, so two processes can never ask the same run of a
file at once (the second is refused at open). A DuckLake store has many writers, and two
processes on one run id (a re-run while the first still runs, a sweep started twice) each
decided what was left to ask before the other stored anything: both asked every question
(5,025 requests sent for 1,740 items, issue 25). So a process asking a run of a lake first
claims it: a row of `run_leases` naming the process, taken in a write transaction (the lake's
commit token serialises it with every other write), renewed every BEAT_S, given up at the end.
A claim not renewed for TTL_S is dead (its process was killed, or its machine lost): the next
process takes it over and resumes the run. A process that finds a live claim waits for it to
end, saying so, and then resumes the run, which by then asks only what the first left
unanswered (usually nothing): the second command joins the first instead of paying twice.

A claim is dead only if its process could be: one held by a process that is still running on
this machine (told apart from a later process given the same pid by its start time) is never
taken over, however long since it renewed, since a stopped process (SIGSTOP, Ctrl-Z) resumes
with its requests in flight and would pay for them again beside its taker (52 items were paid
twice, issue 33): the waiting command says the holder is stopped and how to resume or end it.
A claim of another machine's process not renewed for TTL_S is dead.

A holder checks its claim before each request it sends, a first attempt or a retry (`valid`,
then `confirm` in the asking loop: mathprobe.runs.request_slots): renewed within FRESH_S, it
sends; else (a process resumed after a stop, a catalog that did not answer) it renews the
claim first, and a claim found taken over stops the run at once: `lost` is set, the asking
loop halts, nothing more is sent. (It had gone on asking for 2.3 s after a resume, until its
heartbeat looked.) Times are the machines' UTC clocks; TTL_S is far above the skew of
synchronised clocks.
"""
from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from mathprobe import processes
from mathprobe.errors import MathprobeError

if TYPE_CHECKING:
    from mathprobe.store.duckdb_store import Store

TTL_S = 60.0          # a claim not renewed this long is dead (unless its process runs here)
BEAT_S = 15.0         # renewed this often
FRESH_S = 2 * BEAT_S  # renewed longer ago than this: renewed again before a request is sent
POLL_S = 2.0          # a waiting process looks again this often ...
SAY_S = 60.0          # ... and says it still waits this often


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class Claim:
    """Who holds a run: a process on a host, and when it last renewed its claim; `stopped`: its
    claim's life is over but its process still runs on this machine (stopped, or stuck)."""
    host: str
    pid: int
    beat_at: datetime
    stopped: bool = False

    def describe(self) -> str:
        age = max(0.0, (_now() - self.beat_at).total_seconds())
        if self.stopped:
            return (f"pid {self.pid} on this machine, which has not renewed its claim for "
                    f"{age:.0f} s but is still running: stopped? `kill -CONT {self.pid}` lets "
                    "it go on; ending it lets this command take the run over")
        return f"pid {self.pid} on {self.host}, alive {age:.0f} s ago"


def _runs_here(host: str, pid: int, taken_at: datetime) -> bool:
    """Whether the claim's process is running on this machine: its pid is taken by a process
    that started before the claim was taken (a later one given the same pid is not it)."""
    if host != socket.gethostname():
        return False
    started = processes.started_at(pid)
    return started is not None and started <= taken_at.replace(tzinfo=UTC).timestamp() + 2.0


_held: dict[tuple[str, str], RunLease] = {}     # (store, run id) -> this process's claim


def current(store_path: str, run_id: str) -> RunLease | None:
    """This process's claim on `run_id` of the store, while `holding` holds it."""
    return _held.get((str(store_path), run_id))


class RunLease:
    """This process's claim on one run of a lake (see the module's doc)."""

    def __init__(self, store: Store, run_id: str, on_lost: Callable[[], None] = lambda: None):
        self.store, self.run_id, self.on_lost = store, run_id, on_lost
        self.holder = uuid.uuid4().hex
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._beater: threading.Thread | None = None
        self._beat_ok = time.monotonic()
        self._renewing = threading.Lock()

    def try_take(self) -> Claim | None:
        """Claim the run; None when it is now ours, else the live claim of another process."""
        def work(con) -> Claim | None:
            row = con.execute("SELECT holder, host, pid, beat_at, expires_at, taken_at "
                              "FROM run_leases WHERE run_id = ?", [self.run_id]).fetchone()
            now = _now()
            if row is not None and row[0] != self.holder:
                if row[4] > now:
                    return Claim(row[1], row[2], row[3])
                if _runs_here(row[1], row[2], row[5]):
                    return Claim(row[1], row[2], row[3], stopped=True)
            con.execute("DELETE FROM run_leases WHERE run_id = ?", [self.run_id])
            con.execute("INSERT INTO run_leases VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [self.run_id, self.holder, socket.gethostname(), os.getpid(), now, now,
                         now + timedelta(seconds=TTL_S)])
            return None
        return self.store.write(work)

    def take(self, say: Callable[[str], None]) -> None:
        """Claim the run, waiting (and saying so) while another live process holds it."""
        since, said = time.monotonic(), None
        while (other := self.try_take()) is not None:
            now = time.monotonic()
            if said is None or now - said >= SAY_S:
                said = now
                say(f"run {self.run_id} is being asked by another process ({other.describe()}): "
                    f"waiting for it to end ({now - since:.0f} s so far), then this command "
                    "resumes the run and asks only what is left; Ctrl-C stops waiting")
            time.sleep(POLL_S)
        self._beat_ok = time.monotonic()
        self._beater = threading.Thread(target=self._beat, name=f"lease-{self.run_id}",
                                        daemon=True)
        self._beater.start()

    def _beat(self) -> None:
        while not self._stop.wait(BEAT_S) and self.confirm(force=True):
            pass

    def valid(self) -> bool:
        """Whether a request may be sent now without asking the catalog: the claim is ours and
        was renewed within FRESH_S (well inside its life: no one can have taken it)."""
        return not self.lost.is_set() and time.monotonic() - self._beat_ok < FRESH_S

    def confirm(self, force: bool = False) -> bool:
        """Renew the claim now (unless another thread just did, or `force`); whether it is
        still ours. A claim found taken over sets `lost` (the run halts). A catalog that does
        not answer leaves the claim ours while it cannot have expired (TTL_S since the last
        renewal)."""
        with self._renewing:
            if self.lost.is_set():
                return False
            if not force and self.valid():
                return True
            try:
                mine = self.store.write(self._renew)
            except Exception:         # noqa: BLE001 - the catalog unreachable: try again
                mine = time.monotonic() - self._beat_ok < TTL_S
            else:
                self._beat_ok = time.monotonic() if mine else self._beat_ok
            if not mine:
                self.lost.set()
                self.on_lost()
            return mine

    def _renew(self, con) -> bool:
        now = _now()
        con.execute("UPDATE run_leases SET beat_at = ?, expires_at = ? "
                    "WHERE run_id = ? AND holder = ?",
                    [now, now + timedelta(seconds=TTL_S), self.run_id, self.holder])
        return con.execute("SELECT count(*) FROM run_leases WHERE run_id = ? AND holder = ?",
                           [self.run_id, self.holder]).fetchone()[0] == 1

    def release(self) -> None:
        """Give the claim up (best effort: a claim left behind expires after TTL_S)."""
        self._stop.set()
        if self._beater is not None:
            self._beater.join(timeout=5)
        with contextlib.suppress(Exception):
            self.store.write(lambda con: con.execute(
                "DELETE FROM run_leases WHERE run_id = ? AND holder = ?",
                [self.run_id, self.holder]))


@contextlib.contextmanager
def holding(store: Store, run_id: str,
            say: Callable[[str], None] = lambda _: None) -> Iterator[RunLease | None]:
    """The run claimed for the length of the block on a lake (waiting for a live holder to
    end); on a DuckDB file nothing (its write lock admits one process). Yields the lease (None
    on a file), whose `lost` says the claim could not be renewed; the store's writer then
    halts, so nothing more is asked."""
    if not store.is_lake:
        yield None
        return
    lease = RunLease(store, run_id, on_lost=lambda: store.writer().halt.set())
    lease.take(say)
    _held[(str(store.path), run_id)] = lease
    try:
        yield lease
    finally:
        _held.pop((str(store.path), run_id), None)
        lease.release()


def check(lease: RunLease | None) -> None:
    """Raise the one line for a run whose claim could not be renewed (its asking halted)."""
    if lease is not None and lease.lost.is_set():
        raise MathprobeError(
            f"run {lease.run_id}: this process lost its claim on the run (not renewed for "
            f"{TTL_S:.0f} s: the lake's catalog unreachable, or this process stopped; another "
            "process may have taken the run over), so it stopped asking before sending anything "
            "more; run the same command again to resume what is left")
