"""The DuckDB store: raw responses in, SQL views out.

DuckDB allows one writer per file, so a process holds one `Store` per store (`open_store`) and
every write goes through it under a lock, in a transaction: a run killed at any moment leaves a
readable database whose responses are either fully written or absent. Responses are
append-only; a response whose (run, item) already has a usable answer is not written again,
which makes re-imports and resumed runs idempotent. Model answers arrive through the single
writer thread (`tasks.store.writer`).

The same `Store` also opens a DuckLake catalog (`--db ducklake:...`, `tasks.store.location`),
which many processes write at once: there every write takes the lake's commit token and is
retried whole when another process committed first (`tasks.store.lake` says why that never
loses or duplicates a response). The writes below are written so they mean the same on both:
no RETURNING, no INSERT OR REPLACE (a keyed write deletes the key's rows, then inserts), and
response ids given explicitly (the file's sequence, the lake's id blocks).

Opening a store for writing also repairs what a dead process left: answers it spooled when the
disk was full are stored first (`tasks.store.spool`), and, on a DuckDB file, runs it left
`running` become `interrupted` (only one process can hold a file for writing, so their process
is gone; a lake has many writers and keeps them); their Prefect flow runs are listed in
`interrupted` for the flow to mark Crashed. A read-only open of a file (`report`, `sql`)
writes nothing, so it works on a read-only mount or a full disk.
"""
from __future__ import annotations

import atexit
import importlib.util
import json
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from tasks.errors import MathprobeError, StoreWriteError
from tasks.items import Completion, Item
from tasks.store import lake, spool
from tasks.store.errors import connect, write_error
from tasks.store.location import Location, parse
from tasks.store.sql import apply as apply_sql
from tasks.store.sql import sql_files, sql_layer
from tasks.store.writer import ResponseWriter

T = TypeVar("T")

# duckdb 1.5.5 tries to import pandas twice for every element of a list it binds as a parameter
# (our bulk writes) when pandas is not installed, and Python does not remember a failed import:
# a 4,000-row write took 0.7 s instead of 0.01 s. A None entry makes that import fail at once.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None      # type: ignore[assignment]

# Statuses that carry an answer to grade; `infra_failed` is not one: it is retried later.
ANSWERED = ("ok", "refused", "missing")
ANSWERED_SQL = "('ok', 'refused', 'missing')"


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass(frozen=True)
class RunSpec:
    run_id: str
    benchmark: str
    model: str
    backend: str
    setting: str
    params: dict[str, Any]
    flow_run_id: str | None = None      # the Prefect flow run doing the work, if any


class Store:
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
            lake.apply_schema(self.con, self.location, [f.read_text() for f in sql_files()])
            self._recover(dead_runs=False)
            return
        if self.read_only:
            self.con = connect(self.path, read_only=True)
            self._check_views()
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
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
            pending = spool.pending(self.path)
            reason = getattr(exc, "reason", None) or " ".join(str(exc).split())
            raise StoreWriteError(
                f"cannot write to {self.path} ({reason})"
                + (f"; answers saved by an earlier run wait in {', '.join(map(str, pending))}"
                   if pending else "") + ": free space (or make it writable) and run again"
            ) from None

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
            commented = apply_sql(con, files)
            con.execute("INSERT OR REPLACE INTO store_meta VALUES ('sql_layer', ?)", [digest])
            con.execute("COMMIT")
        except BaseException:
            lake._rollback(con)
            raise
        if commented:                  # never leave a table's column comments in the WAL
            con.execute("CHECKPOINT")  # (see tasks.store.sql.apply)

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
            writer = duckdb.connect(self.path)
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
            self.con = None
        if _STORES.get(self.path) is self:
            _STORES.pop(self.path, None)

    @staticmethod
    def _unnest(columns: dict[str, tuple[str, list]]) -> tuple[str, dict[str, list]]:
        """A SELECT that turns parallel Python lists into rows: bulk inserts without executemany."""
        select = ", ".join(f"unnest(${name}::{typ}[]) AS {name}" for name, (typ, _) in columns.items())
        return select, {name: values for name, (_, values) in columns.items()}

    # -- items ----------------------------------------------------------------------------
    def upsert_items(self, items: Sequence[Item]) -> None:
        select, params = self._unnest({
            "benchmark": ("VARCHAR", [i.benchmark for i in items]),
            "item_id": ("VARCHAR", [i.item_id for i in items]),
            "group_id": ("VARCHAR", [i.group_id for i in items]),
            "part": ("VARCHAR", [i.part for i in items]),
            "concept": ("VARCHAR", [i.concept for i in items]),
            "question": ("VARCHAR", [i.question for i in items]),
            "gold": ("VARCHAR", [i.gold for i in items]),
            "payload": ("VARCHAR", [json.dumps(i.payload, ensure_ascii=False) for i in items]),
        })
        self.write(lambda con: _replace_keyed(
            con, "items", ("benchmark", "item_id"),
            f"SELECT * REPLACE (payload::JSON AS payload) FROM (SELECT {select})", params))

    def dataset_fingerprint(self, benchmark: str) -> str | None:
        rows = self.query("SELECT fingerprint FROM loaded_datasets WHERE benchmark = ?", [benchmark])
        return rows[0][0] if rows else None

    def set_dataset_fingerprint(self, benchmark: str, fingerprint: str) -> None:
        self.write(lambda con: _replace_keyed(
            con, "loaded_datasets", ("benchmark",),
            "SELECT $benchmark AS benchmark, $fingerprint AS fingerprint, current_timestamp",
            {"benchmark": benchmark, "fingerprint": fingerprint}))

    def replace_table(self, table: str, columns: dict[str, tuple[str, list]]) -> None:
        """Reference tables loaded from the data directory (e.g. the WE-MATH knowledge tree)."""
        select, params = self._unnest(columns)

        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute(f"DELETE FROM {table}")
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}", params)
        self.write(work)

    # -- runs -----------------------------------------------------------------------------
    def start_run(self, spec: RunSpec, n_items: int) -> None:
        """Create the run, or reopen it for resuming; a run id is never reused for other work."""
        self.write(lambda con: self._start_run(con, spec, n_items))

    @staticmethod
    def _start_run(con: duckdb.DuckDBPyConnection, spec: RunSpec, n_items: int) -> None:
        row = con.execute("SELECT benchmark, model, setting, params FROM runs WHERE run_id = ?",
                          [spec.run_id]).fetchone()
        if row is None:
            con.execute(
                "INSERT INTO runs (run_id, benchmark, model, backend, setting, params, started_at,"
                " status, n_items, flow_run_id) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                [spec.run_id, spec.benchmark, spec.model, spec.backend, spec.setting,
                 json.dumps(spec.params, sort_keys=True), _now(), n_items, spec.flow_run_id])
            return
        check_same_work(spec, row)
        con.execute("UPDATE runs SET status = 'running', finished_at = NULL, "
                    "n_items = greatest(coalesce(n_items, 0), ?), "
                    "flow_run_id = coalesce(?, flow_run_id) WHERE run_id = ?",
                    [n_items, spec.flow_run_id, spec.run_id])

    def finish_run(self, run_id: str, status: str) -> None:
        self.write(lambda con: con.execute(
            "UPDATE runs SET status = ?, finished_at = ?, cost_usd = "
            "(SELECT coalesce(sum(cost_usd), 0) FROM responses WHERE run_id = ?) WHERE run_id = ?",
            [status, _now(), run_id, run_id]))

    def run(self, run_id: str) -> dict[str, Any] | None:
        rows = self.query_dicts("SELECT * FROM run_summary WHERE run_id = ?", [run_id])
        return rows[0] if rows else None

    # -- responses ------------------------------------------------------------------------
    def item_statuses(self, run_id: str) -> dict[str, str]:
        """item_id -> status of the response that counts, for every item the run has asked."""
        return dict(self.query("SELECT item_id, status FROM current_responses WHERE run_id = ?",
                               [run_id]))

    def spent(self, run_id: str) -> float:
        return self.query("SELECT coalesce(sum(cost_usd), 0) FROM responses WHERE run_id = ?",
                          [run_id])[0][0]

    def append_responses(self, run_id: str,
                         rows: Iterable[tuple[str, str, Completion]]) -> int:
        """Append (item_id, request_hash, completion) rows now; returns how many were new.

        A row for an item that already has an answer in this run is skipped, so writing the same
        batch twice (a resumed run, a re-import) never duplicates anything.
        """
        rows = list(rows)
        if not rows:
            return 0
        return self.write(lambda con: self._append_new(con, run_id, rows))

    def _append_new(self, con: duckdb.DuckDBPyConnection, run_id: str,
                    rows: list[tuple[str, str, Completion]]) -> int:
        """Inside a write: insert the rows whose item has no answer in the run yet."""
        answered = {r[0] for r in con.execute(
            f"SELECT item_id FROM responses WHERE run_id = $run_id AND status IN {ANSWERED_SQL} "
            "AND item_id IN (SELECT unnest($items::VARCHAR[]))",
            {"run_id": run_id, "items": sorted({r[0] for r in rows})}).fetchall()}
        rows = [r for r in rows if r[0] not in answered]
        if not rows:
            return 0
        ids = self._new_response_ids(con, len(rows))
        cs = [c for _, _, c in rows]
        select, params = self._unnest({
            "response_id": ("BIGINT", ids),
            "item_id": ("VARCHAR", [r[0] for r in rows]),
            "request_hash": ("VARCHAR", [r[1] for r in rows]),
            "response": ("VARCHAR", [c.text for c in cs]),
            "status": ("VARCHAR", [c.status for c in cs]),
            "error": ("VARCHAR", [c.error for c in cs]),
            "attempts": ("INTEGER", [c.attempts for c in cs]),
            "latency_s": ("DOUBLE", [c.latency_s for c in cs]),
            "input_tokens": ("BIGINT", [c.input_tokens for c in cs]),
            "output_tokens": ("BIGINT", [c.output_tokens for c in cs]),
            "cost_usd": ("DOUBLE", [c.cost_usd for c in cs]),
        })
        params["run_id"] = run_id
        con.execute(f"""
            INSERT INTO responses (response_id, run_id, item_id, request_hash, response, status,
                                   error, attempts, latency_s, input_tokens, output_tokens,
                                   cost_usd)
            SELECT s.response_id, $run_id, s.* EXCLUDE (response_id) FROM (SELECT {select}) s
            """, params)
        inserted = [(rid, r[0], r[2].status) for rid, r in zip(ids, rows)]
        self._insert_logprobs(con, inserted, {r[0]: r[2] for r in rows if r[2].token_logprobs})
        return len(inserted)

    def _insert_logprobs(self, con, inserted: list[tuple], by_item: dict[str, Completion]) -> None:
        """Token log-probabilities of the responses just inserted (generated tokens, or the scored
        prompt's), in the same transaction."""
        cols: dict[str, list] = {"response_id": [], "position": [], "token": [], "token_id": [],
                                 "logprob": [], "kind": []}
        for response_id, item_id, _ in inserted:
            c = by_item.get(item_id)
            for pos, (token, token_id, logprob) in enumerate(c.token_logprobs if c else []):
                for k, v in zip(cols, (response_id, pos, token, token_id, logprob, c.logprob_kind)):
                    cols[k].append(v)
        if not cols["response_id"]:
            return
        select, params = self._unnest({
            "response_id": ("BIGINT", cols["response_id"]), "position": ("INTEGER", cols["position"]),
            "token": ("VARCHAR", cols["token"]), "token_id": ("BIGINT", cols["token_id"]),
            "logprob": ("DOUBLE", cols["logprob"]), "kind": ("VARCHAR", cols["kind"])})
        con.execute(f"INSERT INTO token_logprobs (response_id, position, token, token_id, logprob, kind) "
                    f"SELECT * FROM (SELECT {select})", params)

    def write_probe_scores(self, run_id: str, probe: str,
                           rows: Sequence[tuple[str, float, str | None]]) -> None:
        """(item_id, score, detail) per item of a probe run (Rouge-L, reciprocal rank)."""
        if not rows:
            return
        select, params = self._unnest({
            "item_id": ("VARCHAR", [r[0] for r in rows]), "score": ("DOUBLE", [r[1] for r in rows]),
            "detail": ("VARCHAR", [r[2] for r in rows])})
        params.update(run_id=run_id, probe=probe)
        self.write(lambda con: _replace_keyed(
            con, "probe_scores", ("run_id", "item_id", "probe"),
            f"SELECT $run_id AS run_id, item_id, $probe AS probe, score, detail "
            f"FROM (SELECT {select})", params))

    # -- verdicts -------------------------------------------------------------------------
    def ungraded(self, run_id: str, grader: str) -> list[tuple[int, str, str | None]]:
        """(response_id, item_id, response) of answers in the run that `grader` has not graded."""
        return self.query(f"""
            SELECT c.response_id, c.item_id, c.response
            FROM current_responses c
            LEFT JOIN verdicts v ON v.run_id = c.run_id AND v.item_id = c.item_id
                                AND v.grader = ? AND v.response_id = c.response_id
            WHERE c.run_id = ? AND c.status IN {ANSWERED_SQL} AND v.item_id IS NULL
            ORDER BY c.response_id""", [grader, run_id])

    def write_verdicts(self, run_id: str, grader: str,
                       rows: Sequence[tuple[str, int, str | None, bool]]) -> None:
        """(item_id, response_id, extracted, correct) rows; a re-grade replaces the old verdict."""
        if not rows:
            return
        select, params = self._unnest({
            "item_id": ("VARCHAR", [r[0] for r in rows]),
            "response_id": ("BIGINT", [r[1] for r in rows]),
            "extracted": ("VARCHAR", [r[2] for r in rows]),
            "correct": ("BOOLEAN", [r[3] for r in rows]),
        })
        params.update(run_id=run_id, grader=grader)
        self.write(lambda con: _replace_keyed(
            con, "verdicts", ("run_id", "item_id", "grader"), f"""
            SELECT $run_id AS run_id, s.item_id, $grader AS grader, s.response_id, s.extracted,
                   s.correct, current_timestamp AS graded_at
            FROM (SELECT {select}) s""", params))


def _replace_keyed(con: duckdb.DuckDBPyConnection, table: str, key: Sequence[str], select: str,
                   params: Any) -> None:
    """Insert the rows of `select` (all of `table`'s columns, in order), first deleting the rows
    with the same key: what INSERT OR REPLACE does on a file, written so a DuckLake table
    (which has no keys) means the same. Call inside a write."""
    match = " AND ".join(f"t.{k} IS NOT DISTINCT FROM n.{k}" for k in key)
    con.execute(f"DELETE FROM {table} t WHERE EXISTS (SELECT 1 FROM ({select}) n WHERE {match})",
                params)
    con.execute(f"INSERT INTO {table} {select}", params)


def check_same_work(spec: RunSpec, row: tuple) -> None:
    """A run id is never reused for other work: a MathprobeError showing only what differs
    between the stored run (benchmark, model, setting, params) and `spec`."""
    benchmark, model, setting, params = row
    stored = {"benchmark": benchmark, "model": model, "setting": setting,
              **{f"params.{k}": v for k, v in (json.loads(params) if params else {}).items()}}
    wanted = {"benchmark": spec.benchmark, "model": spec.model, "setting": spec.setting,
              **{f"params.{k}": v for k, v in spec.params.items()}}
    differs = [k for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k)]
    if differs:
        def show(d: dict) -> str:
            return " ".join(f"{k}={d[k]}" if k in d else f"{k} unset" for k in differs)
        raise MathprobeError(f"run id '{spec.run_id}' already holds other work: it has "
                             f"{show(stored)}; this call asks for {show(wanted)}. Use another "
                             "--run-id, or the same arguments to resume it")


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
            store = _STORES[loc.key] = Store(loc, read_only=read_only)
        return store


def peek(path: str | Path, sql: str, params: Any = None) -> list[tuple]:
    """One read-only query of a store file, through the process's open store if there is one,
    else a connection closed at once (so a later write open in this process is not refused)."""
    key = parse(path).key
    with _STORES_LOCK:
        store = _STORES.get(key)
    if store is not None:
        return store.query(sql, params)
    con = connect(key, read_only=True)
    try:
        return con.execute(sql, params).fetchall()
    except duckdb.CatalogException:
        return []                      # not a mathprobe store (yet)
    finally:
        con.close()


@atexit.register
def close_all() -> None:
    """Close every open store (an unclosed DuckDB connection at exit leaks native objects)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
    for store in stores:
        store.close()
