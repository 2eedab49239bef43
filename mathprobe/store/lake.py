"""DuckLake: one store shared by many writing processes, on one machine or many.

What DuckLake 1.5.5 (format 1.0) gives, checked here: tables, views, scalar and table macros and
COMMENT ON all live in the catalog, so every connection (and the DuckDB CLI) sees the same
views; snapshot isolation for readers, which keep reading while runs write. What it lacks:
PRIMARY KEY / UNIQUE, sequences, `INSERT ... RETURNING` and `INSERT OR REPLACE`. How the store
copes, keeping the meaning of the schema and the views' text unchanged (`adapt_ddl`):
  * keys are dropped from the DDL; the store's writes keep them unique themselves (a keyed
    write deletes the key's rows, then inserts, in one transaction; responses are appended only
    for items without an answer), which is the same on a file;
  * response ids come from `lake_writes.last_response_id` instead of the sequence: a write
    takes a block of ids in its own transaction, so they are unique and increase with time
    (the order `current_responses` relies on), as the sequence's do on a file.

Why no response is lost or duplicated with several writers (each process still has ONE writer,
`mathprobe.store.writer`, so within a process writes are already ordered):
  1. Every write transaction first updates the single row of `lake_writes` (the commit token).
     Two transactions that overlap both touch that row, so DuckLake refuses the second commit
     ("Transaction conflict" on PostgreSQL; SQLite refuses the stale writer: "database is
     locked"). Without it DuckLake would merge two concurrent appends on its own, and the
     "insert only if this item has no answer yet" check of both would pass: a duplicate.
  2. A refused commit leaves nothing behind (the transaction is rolled back whole), and
     `retrying` runs the whole transaction again on a fresh snapshot, where the check now sees
     the other writer's rows. So each write is idempotent and applied exactly once; retries
     back off with jitter and give up only after `RETRY_FOR_S` seconds (then the run's writer
     reports the failure like any other write error: the answers are not marked stored).
  On a SQLite catalog (one machine by definition) writers also queue on an advisory file
  lock beside it, so they take turns instead of failing and backing off (4 writers of 1,000
  answers each: 40 s without it, 16 s with it, here). The lock is only an optimisation; the token still decides.
  3. A write that commits is durable in the catalog before the writer resolves its future, so
     an interrupted run resumes from what is there and asks only what is missing.
Schema changes (views, macros) are applied only when their text changed (a fingerprint in
`lake_writes`), so connecting does not write a snapshot; they take the token as well.
"""
from __future__ import annotations

import fcntl
import glob
import hashlib
import importlib.util
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import duckdb
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_random_exponential

from mathprobe import extras
from mathprobe.errors import MathprobeError
from mathprobe.store import run_data
from mathprobe.store.errors import offline_connect
from mathprobe.store.location import Location
from mathprobe.store.one_row import one_row
from mathprobe.store.sql import write_comments
from mathprobe.store.sql_order import without_comments

T = TypeVar("T")

ALIAS = "lake"
RETRY_FOR_S = 300.0
SCANNERS = {"sqlite": "sqlite_scanner", "postgres": "postgres_scanner"}

# The commit token and the lake's own bookkeeping; one row.
LAKE_TABLE = """
CREATE TABLE IF NOT EXISTS lake_writes (
    commits            BIGINT NOT NULL,
    last_response_id   BIGINT NOT NULL,
    schema_fingerprint VARCHAR
);
COMMENT ON TABLE lake_writes IS 'DuckLake stores only: the commit token every write updates (so concurrent writes conflict and are retried, never merged) and the source of response ids (DuckLake has no sequences).';
COMMENT ON COLUMN lake_writes.commits IS 'Write transactions committed so far.';
COMMENT ON COLUMN lake_writes.last_response_id IS 'The highest response_id handed out; a write takes the next block.';
COMMENT ON COLUMN lake_writes.schema_fingerprint IS 'Hash of the SQL last applied (views, macros), so unchanged SQL is not re-applied on every connect.';
CREATE TABLE IF NOT EXISTS run_leases (
    run_id     VARCHAR NOT NULL,
    holder     VARCHAR NOT NULL,
    host       VARCHAR,
    pid        INTEGER,
    taken_at   TIMESTAMP,
    beat_at    TIMESTAMP,
    expires_at TIMESTAMP
);
COMMENT ON TABLE run_leases IS 'DuckLake stores only: which process is asking a run now (one live writer per run id; mathprobe/store/run_lease.py). A claim not renewed by expires_at is dead and is taken over.';
COMMENT ON COLUMN run_leases.run_id IS 'The run being asked.';
COMMENT ON COLUMN run_leases.holder IS 'A random id of the claiming process''s claim.';
COMMENT ON COLUMN run_leases.host IS 'The machine of the claiming process.';
COMMENT ON COLUMN run_leases.pid IS 'The claiming process''s id on that machine.';
COMMENT ON COLUMN run_leases.taken_at IS 'When the claim was taken (UTC).';
COMMENT ON COLUMN run_leases.beat_at IS 'When the holder last renewed it (UTC).';
COMMENT ON COLUMN run_leases.expires_at IS 'When it is dead unless renewed again (UTC).';
"""


def extension_file(name: str) -> str | None:
    """The extension shipped by the PyPI package `duckdb-extension-<name>` for this duckdb."""
    spec = importlib.util.find_spec(f"duckdb_extension_{name}")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        found = glob.glob(str(Path(root) / "extensions" / f"v{duckdb.__version__}" /
                              f"{name}.duckdb_extension"))
        if found:
            return found[0]
    return None


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """LOAD an extension from its installed PyPI package (offline). DuckDB's own INSTALL would
    reach for the internet: never; a missing package is the `lake` extra's one-line error."""
    path = extension_file(name)
    if path is None:
        extras.require("lake", f"a DuckLake store (DuckDB's {name} extension)",
                       (f"duckdb_extension_{name}",))
        raise MathprobeError(f"the DuckDB extension {name!r} is not in its package for duckdb "
                             f"{duckdb.__version__}: pip install 'mathprobe[lake]' again")
    try:
        con.execute(f"LOAD '{path}'")
    except duckdb.Error as exc:
        raise MathprobeError(
            f"cannot load the DuckDB extension {name!r} ({exc}); install the PyPI package "
            f"duckdb-extension-{name.replace('_', '-')}=={duckdb.__version__}") from exc


def connect(loc: Location, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached as `lake` and made the default catalog."""
    con = offline_connect()
    try:
        load_extension(con, "ducklake")
        load_extension(con, SCANNERS[loc.lake_catalog])
        if loc.data_path and "://" in loc.data_path and not loc.data_path.startswith("file:"):
            load_extension(con, "httpfs")
        attach = loc.attach_sql(ALIAS, read_only)       # before the file exists: a new lake
        if loc.catalog == "sqlite" and not read_only:
            _wal(loc.target)
        if loc.data_path and "://" not in loc.data_path and not read_only:
            Path(loc.data_path).mkdir(parents=True, exist_ok=True)
        def attach_queued() -> None:
            with writers_queue(loc):
                con.execute(attach)
        # several processes may create a new lake at once: the losers of that race see the
        # catalog's tables appear under them ("already exists") and attach again
        retrying(attach_queued, conflict=lambda e: is_conflict(e) or "already exists" in str(e))
        con.execute(f"USE {ALIAS}")
    except duckdb.Error as exc:
        con.close()
        hint = (" (a new PostgreSQL-catalogued lake needs --data-path DIR)"
                if "data_path is not set" in str(exc) else "")
        raise MathprobeError(f"{loc}: cannot open the DuckLake catalog{hint}: "
                             f"{str(exc).splitlines()[0]}") from exc
    return con


def _wal(path: str) -> None:
    """Put a SQLite catalog in WAL mode (kept in the file): readers then never block writers
    nor fail while one commits, as they do in SQLite's default rollback-journal mode, where a
    `report` during a run would hit "database is locked"."""
    import sqlite3

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        with sqlite3.connect(path, timeout=30) as db:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.Error:
        pass           # busy right now: another process is switching it, or it already is


# -- DDL: what DuckLake lacks -------------------------------------------------------------------
_TABLE_KEY = re.compile(r",\s*(PRIMARY\s+KEY|UNIQUE)\s*\([^)]*\)", re.I)
_COLUMN_KEY = re.compile(r"\s+(PRIMARY\s+KEY|UNIQUE)\b", re.I)
_NEXTVAL = re.compile(r"\s+DEFAULT\s+nextval\s*\([^)]*\)", re.I)
_SEQUENCE = re.compile(r"^\s*CREATE\s+(OR\s+REPLACE\s+)?SEQUENCE\b", re.I)
_CREATE_TABLE = re.compile(r"^\s*CREATE\s+(OR\s+REPLACE\s+)?TABLE\b", re.I)
_CREATE_VIEW = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(\w+)", re.I)
_COMMENT_COLUMN = re.compile(r"^\s*COMMENT\s+ON\s+COLUMN\s+(\w+)\.", re.I)
_COMMENT_MACRO = re.compile(r"^\s*COMMENT\s+ON\s+MACRO\b", re.I)


def adapt_ddl(statement: str) -> str | None:
    """The statement as DuckLake accepts it, same meaning for the views: no sequences (ids come
    from `lake_writes`), no key constraints (the store's writes keep keys unique), no
    `DEFAULT nextval(...)` (ids are always given). Other statements pass unchanged."""
    body = without_comments(statement)
    if _SEQUENCE.match(body):
        return None
    if _CREATE_TABLE.match(body):
        body = _TABLE_KEY.sub("", body)
        body = _NEXTVAL.sub("", body)
        return _COLUMN_KEY.sub("", body)
    return statement


def statements(sql_texts: Sequence[str]) -> list[str]:
    """The statements of the store's SQL files, adapted for DuckLake. DuckLake 1.5.5 keeps
    comments on tables, views and table columns but refuses them on a view's columns ("it is
    not a table"): those are left out of a lake (the file store has them, `COMMENT ON VIEW` says
    what the view is in both), and so are comments on macros ("Unsupported catalog type for SET
    COMMENT in DuckLake"; the SQL file beside the macro says the same)."""
    out, views = [], set()
    for text in sql_texts:
        for st in duckdb.extract_statements(text):
            body = without_comments(st.query)
            if m := _CREATE_VIEW.match(body):
                views.add(m.group(1).lower())
            if (m := _COMMENT_COLUMN.match(body)) and m.group(1).lower() in views:
                continue
            if _COMMENT_MACRO.match(body):
                continue
            adapted = adapt_ddl(st.query)
            if adapted and adapted.strip():
                out.append(adapted)
    return out


def fingerprint(sql_texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for text in (LAKE_TABLE, *sql_texts):
        h.update(text.encode())
    return h.hexdigest()


# -- conflicts ------------------------------------------------------------------------------------
_CONFLICT = ("transaction conflict", "database is locked", "could not serialize",
             "conflict on", "deadlock detected", "failed to commit ducklake transaction",
             "duplicate key value violates unique constraint")


def is_conflict(exc: BaseException) -> bool:
    """A write refused because another process committed first: safe to run again."""
    return isinstance(exc, duckdb.Error) and any(s in str(exc).lower() for s in _CONFLICT)


def retrying(fn: Callable[[], T], give_up_after_s: float = RETRY_FOR_S,
             conflict: Callable[[BaseException], bool] = is_conflict) -> T:
    """`fn()`, run again after a conflict with another writer (backing off with jitter)."""
    for attempt in Retrying(retry=retry_if_exception(conflict), reraise=True,
                            wait=wait_random_exponential(multiplier=0.02, max=2.0),
                            stop=stop_after_delay(give_up_after_s)):
        with attempt:
            return fn()
    raise AssertionError("unreachable")


QUEUE_WAIT_S = 10.0    # the longest a write waits for its turn before going ahead anyway


@contextmanager
def writers_queue(loc: Location) -> Iterator[None]:
    """On a SQLite catalog, one write at a time across this machine's processes (`FILE.lock`).
    Only an optimisation (the token decides), so never a wait without end: a holder that is
    stopped (SIGSTOP, a debugger) or stuck is not waited for past QUEUE_WAIT_S."""
    if loc.catalog != "sqlite":
        yield
        return
    with open(loc.target + ".lock", "a") as f:
        deadline, pause = time.monotonic() + QUEUE_WAIT_S, 0.001
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    locked = False
                    break
                time.sleep(pause)
                pause = min(0.02, pause * 2)
        try:
            yield
        finally:
            if locked:
                fcntl.flock(f, fcntl.LOCK_UN)


# -- the token --------------------------------------------------------------------------------------
def take_token(con: duckdb.DuckDBPyConnection, response_ids: int = 0) -> int:
    """Inside a write transaction: claim the commit token (so an overlapping write conflicts)
    and `response_ids` new response ids; returns the first of them."""
    (last,) = one_row(con, "SELECT last_response_id FROM lake_writes")
    con.execute("UPDATE lake_writes SET commits = commits + 1, "
                "last_response_id = last_response_id + ?", [response_ids])
    return last + 1


def apply_schema(con: duckdb.DuckDBPyConnection, loc: Location,
                 sql_texts: Sequence[str]) -> None:
    """Create or update the lake's tables, views and macros when the SQL changed (retried like
    any write: several processes may connect to a new lake at once)."""
    wanted = fingerprint(sql_texts)

    def current() -> str | None:
        try:
            row = con.execute("SELECT schema_fingerprint FROM lake_writes").fetchone()
        except duckdb.CatalogException:
            return None
        return row[0] if row else None

    def apply() -> None:
        if current() == wanted:
            return
        con.execute("BEGIN TRANSACTION")
        try:
            for st in statements([LAKE_TABLE]):
                con.execute(st)
            if one_row(con, "SELECT count(*) FROM lake_writes")[0] == 0:
                con.execute("INSERT INTO lake_writes VALUES (0, 0, NULL)")
            take_token(con)
            for st in statements(sql_texts):
                con.execute(st)
            write_comments(con, sql_texts, view_columns=False)   # the shared column docs too
            run_data.refresh(con)      # spans and stored figures by this SQL (migrates a lake)
            con.execute("UPDATE lake_writes SET schema_fingerprint = ?", [wanted])
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise

    def queued() -> None:
        with writers_queue(loc):
            apply()

    if current() != wanted:
        retrying(queued)


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass          # a refused COMMIT has already ended the transaction
