"""The DuckDB store: raw responses in, SQL views out.

DuckDB allows one writer per file, so a process holds one `Store` per store (`open_store`) and
every write goes through it under a lock, in a transaction: a run killed at any moment leaves a
readable database whose responses are either fully written or absent. Responses are
append-only; a response whose (run, item) already has a usable answer is not written again,
which makes re-imports and resumed runs idempotent. Model answers arrive through the single
writer thread (`mathprobe.store.writer`).

The same `Store` also opens a DuckLake catalog (`--db ducklake:...`, `mathprobe.store.location`),
which many processes write at once: there every write takes the lake's commit token and is
retried whole when another process committed first (`mathprobe.store.lake` says why that never
loses or duplicates a response). The writes below are written so they mean the same on both:
no RETURNING, no INSERT OR REPLACE (a keyed write deletes the key's rows, then inserts), and
response ids given explicitly (the file's sequence, the lake's id blocks).

Opening a store for writing also repairs what a dead process left: answers it spooled when the
disk was full are stored first (`mathprobe.store.spool`), and, on a DuckDB file, runs it left
`running` become `interrupted` (only one process can hold a file for writing, so their process
is gone; a lake has many writers and keeps them); their Prefect flow runs are listed in
`interrupted` for the flow to mark Crashed. A read-only open of a file (`report`, `sql`)
writes nothing, so it works on a read-only mount or a full disk.

This module is the store itself (connections, the SQL layer, transactions, the process's one
store per file); the rows it reads and writes are in `items_table`, `runs_table`,
`answers_table` and `batches_table`, mixed into `Store`.
"""
from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from mathprobe.errors import StoreWriteError
from mathprobe.store import lake, run_data, spool, template, upgrades
from mathprobe.store.answers_table import ANSWERED, ANSWERED_SQL, AnswersTable
from mathprobe.store.batches_table import BatchesTable
from mathprobe.store.errors import connect, offline_connect, write_error
from mathprobe.store.items_table import ItemsTable
from mathprobe.store.location import Location, parse
from mathprobe.store.runs_table import RunSpec, RunsTable, check_same_work
from mathprobe.store.sql import apply as apply_sql
from mathprobe.store.sql import sql_layer, sql_texts
from mathprobe.store.writer import ResponseWriter

__all__ = ["ANSWERED", "ANSWERED_SQL", "RunSpec", "Store", "check_same_work", "close_all",
           "open_store", "peek"]

T = TypeVar("T")

# duckdb 1.5.5 tries to import pandas twice for every element of a list it binds as a parameter
# (our bulk writes) when pandas is not installed, and Python does not remember a failed import:
# a 4,000-row write took 0.7 s instead of 0.01 s. A None entry makes that import fail at once.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None      # type: ignore[assignment]


@contextmanager
def pandas_hidden() -> Iterator[None]:
    """Where pandas is installed, duckdb 1.5.5 imports it (0.3-0.7 s here) the first time it
    binds any parameter, only to compare the value with pandas' missing-value markers. Inside
    this, in a process that has not imported pandas, that import fails at once instead (as
    where pandas is not installed); afterwards pandas imports again as usual. For a command's
    whole life (`mathprobe`, which never uses pandas)."""
    if "pandas" in sys.modules:
        yield
        return
    sys.modules["pandas"] = None      # type: ignore[assignment]
    try:
        yield
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


class Store(ItemsTable, RunsTable, AnswersTable, BatchesTable):
    """A store open in this process: a DuckDB file (read-write, or read-only) or a DuckLake
    catalog; its rows are read and written through the mixed-in tables' methods."""

    def __init__(self, path: str | Path | Location, data_path: str | None = None,
                 read_only: bool = False):
        self.location = path if isinstance(path, Location) else parse(path, data_path)
        self.path = self.location.key
        self.is_lake = self.location.is_lake
        self.read_only = read_only and not self.is_lake   # a lake reads beside its writers
        self.stale_views = False       # read-only on a file whose views an older SQL layer made
        self.interrupted: list[tuple[str, str | None]] = []   # (run_id, flow_run_id) found dead
        self.recovered: tuple[int, list[Path]] = (0, [])       # spooled answers stored at open
        self._lock = threading.RLock()
        self._writer: ResponseWriter | None = None
        if self.is_lake:
            self.con = lake.connect(self.location)
            lake.apply_schema(self.con, self.location, sql_texts())
            self._recover(dead_runs=False)
            return
        if self.read_only:
            self.con = connect(self.path, read_only=True)
            self._check_views()
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._check_room_to_open()
            try:
                template.create(self.path, sql_layer()[1], self._apply_sql)   # new: a copy
            except OSError as exc:
                raise self._cannot_write(exc.strerror or str(exc)) from None
        self.con = connect(self.path)
        try:
            self._apply_sql(self.con)
        except duckdb.Error as exc:
            self.con.close()
            raise write_error(self.path, exc) from None
        self._recover(dead_runs=True)

    def _recover(self, dead_runs: bool) -> None:
        """Store what a dead process spooled; on a file, mark the runs it left running."""
        try:
            self.recovered = spool.recover(self)
            if dead_runs:
                with self.transaction() as con:
                    self.interrupted = con.execute(
                        "UPDATE runs SET status = 'interrupted', cost_usd = (SELECT coalesce("
                        "sum(cost_usd), 0) FROM responses r WHERE r.run_id = runs.run_id) "
                        "WHERE status = 'running' RETURNING run_id, flow_run_id").fetchall()
        except (duckdb.Error, OSError, StoreWriteError) as exc:
            self.con.close()
            raise self._cannot_write(getattr(exc, "reason", None)
                                     or " ".join(str(exc).split())) from None

    def _cannot_write(self, reason: str) -> StoreWriteError:
        """The one line (exit status 5) for a store that cannot be opened for writing."""
        pending = spool.pending(self.path)
        return StoreWriteError(
            f"cannot write to {self.path} ({reason})"
            + (f"; answers saved by an earlier run wait in {', '.join(map(str, pending))}"
               if pending else "") + ": free space (or make it writable) and run again")

    def _check_room_to_open(self) -> None:
        """Opening a file that has a write-ahead log replays the log into the file; with no
        room for that, duckdb 1.5.5 can fail inside (a re-run on a still-full disk once ended
        in an abort, exit 134, "FatalException ... duplicate key" on `runs`). Such a file is
        refused here, before DuckDB opens it, in one line (exit status 5)."""
        wal = Path(self.path + ".wal")
        try:
            need = 2 * wal.stat().st_size + OPEN_ROOM
            free = shutil.disk_usage(wal.parent).free
        except OSError:
            return                         # no log (the file was closed cleanly)
        if free < need:
            raise self._cannot_write(f"its disk has {free // 1024} KiB free; storing what its "
                                     f"write-ahead log holds needs about {need // 1024} KiB")

    @staticmethod
    def _apply_sql(con: duckdb.DuckDBPyConnection) -> None:
        """Tables, views and macros, in one transaction, and the hash of what was applied;
        nothing when the file already holds this very SQL (an open then writes nothing, which
        a nearly full disk appreciates, and the file does not grow by a catalog each time; the
        lake keeps its own fingerprint the same way)."""
        files, digest = sql_layer()
        try:
            row = con.execute("SELECT value FROM store_meta WHERE key = 'sql_layer'").fetchone()
        except duckdb.CatalogException:
            row = None
        if row and row[0] == digest:
            return
        con.execute("BEGIN TRANSACTION")
        try:
            upgrades.before_layer(con)     # a table whose key changed, set aside ...
            commented = apply_sql(con, files)
            upgrades.after_layer(con)      # ... and its rows copied under the new key
            run_data.refresh(con)      # spans and stored figures by this layer (migrates old stores)
            con.execute("INSERT OR REPLACE INTO store_meta VALUES ('sql_layer', ?)", [digest])
            con.execute("COMMIT")
        except BaseException:
            lake._rollback(con)
            raise
        if commented:                  # never leave a table's column comments in the WAL
            con.execute("CHECKPOINT")  # (see mathprobe.store.sql.apply)

    def _check_views(self) -> None:
        """Read-only: are the file's views this version's? If not, refresh them through a write
        connection when one can be had, else use them as they are (`stale_views`)."""
        try:
            row = self.con.execute("SELECT value FROM store_meta WHERE key = 'sql_layer'").fetchone()
        except duckdb.Error:
            row = None
        if row and row[0] == sql_layer()[1]:
            return
        self.con.close()
        try:
            writer = offline_connect(self.path)
            try:
                self._apply_sql(writer)
            finally:
                writer.close()
        except duckdb.Error:
            self.stale_views = True
        self.con = connect(self.path, read_only=True)

    # -- plumbing -------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction; on a lake it holds the commit token (a conflicting commit raises:
        use `write` for work that is retried)."""
        with self._lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                if self.is_lake:
                    lake.take_token(self.con)
                yield self.con
            except BaseException:
                lake._rollback(self.con)
                raise
            try:
                self.con.execute("COMMIT")
            except duckdb.Error as exc:
                raise write_error(self.path, exc) from None

    def write(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """`work(con)` in one transaction; on a lake, run again whole (on a fresh snapshot)
        when another process committed a conflicting write first."""
        def once() -> T:
            with self.transaction() as con:
                return work(con)

        def queued() -> T:
            with lake.writers_queue(self.location):
                return once()
        return lake.retrying(queued) if self.is_lake else once()

    def _new_response_ids(self, con: duckdb.DuckDBPyConnection, n: int) -> list[int]:
        """`n` fresh response ids inside the current write: the file's sequence, or a block
        of the lake's (DuckLake has no sequences)."""
        if n == 0:
            return []
        if self.is_lake:
            first = lake.take_token(con, n)
            return list(range(first, first + n))
        return [r[0] for r in con.execute("SELECT nextval('response_seq') FROM range(?)",
                                          [n]).fetchall()]

    def store_figures(self) -> list[str]:
        """Store the figures of every run whose stored figures are not current (after its
        grading, judging or import finished); returns those runs (`mathprobe.store.run_data`)."""
        return self.write(run_data.store_figures)

    def query(self, sql: str, params: Any = None) -> list[tuple]:
        with self._lock:
            return self.con.execute(sql, params).fetchall()

    def query_numpy(self, sql: str, params: Any = None) -> dict[str, Any]:
        """Column name -> numpy array (many rows of numbers, without a Python object each)."""
        with self._lock:
            return self.con.execute(sql, params).fetchnumpy()

    def query_dicts(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        with self._lock:
            cur = self.con.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]

    def writer(self) -> ResponseWriter:
        with self._lock:
            if self._writer is None:
                self._writer = ResponseWriter(self)
            return self._writer

    def write_failure(self) -> str | None:
        """What the writer could not store, in one line (None while writes succeed)."""
        return self._writer.failure_message() if self._writer is not None else None

    def close(self) -> None:
        """Close the file and drop the connection object itself: a closed store referenced
        from somewhere (a traceback's frames) holds no native DuckDB object at exit."""
        if self._writer is not None:
            self._writer.close()
        with self._lock:
            if self.con is not None:
                try:
                    self.con.close()           # checkpoints: may fail on a full disk, which
                except duckdb.Error:           # loses nothing (the WAL stays for the next open)
                    pass
            # a closed store is never queried again (its methods need the open connection the
            # attribute is typed as); None drops the native object
            self.con = None  # type: ignore[assignment]
        if _STORES.get(self.path) is self:
            _STORES.pop(self.path, None)


OPEN_ROOM = 256 * 1024      # room a file with a write-ahead log needs beyond twice the log

_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def open_store(path: str | Path, data_path: str | None = None, read_only: bool = False) -> Store:
    """The process's one `Store` for a database file or DuckLake catalog (one writer per
    process). `data_path`: where a new lake puts its Parquet files. A read-only open of a file
    writes nothing (a read-only mount, a full disk) and is served by the process's write store
    when there is one."""
    loc = parse(path, data_path)
    with _STORES_LOCK:
        store = _STORES.get(loc.key)
        if store is not None and store.read_only and not read_only:
            store.close()               # DuckDB: one configuration per file and process
            store = None
        if store is None:
            if not read_only:
                _unpeek(loc.key)
            store = _STORES[loc.key] = Store(loc, read_only=read_only)
        return store


_PEEKED: dict[str, duckdb.DuckDBPyConnection] = {}     # peek's connections, by store


def peek(path: str | Path, sql: str, params: Any = None) -> list[tuple]:
    """One read-only query of a store file, through the process's open store if there is one,
    else a read-only connection kept for the command's next peeks (opening a store file took
    0.05-0.2 s, and a run's checks peek three times before it asks) until the process opens the
    file for writing (one configuration per file and process) or closes its stores."""
    key = parse(path).key
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            if key not in _PEEKED:
                _PEEKED[key] = connect(key, read_only=True)
            con = _PEEKED[key]
    if store is not None:
        return store.query(sql, params)
    try:
        return con.cursor().execute(sql, params).fetchall()
    except duckdb.CatalogException:
        return []                      # not a mathprobe store (yet)


def _unpeek(key: str) -> None:
    """Close peek's connection to `key` (call with _STORES_LOCK held)."""
    con = _PEEKED.pop(key, None)
    if con is not None:
        con.close()


@atexit.register
def close_all() -> None:
    """Close every open store (an unclosed DuckDB connection at exit leaks native objects)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
        for key in list(_PEEKED):
            _unpeek(key)
    for store in stores:
        store.close()
