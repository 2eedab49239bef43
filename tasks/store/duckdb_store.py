"""The DuckDB store: raw responses in, SQL views out.

DuckDB allows one writer per file, so a process holds one `Store` per database file
(`open_store`) and every write goes through it under a lock, in a transaction: a run killed at
any moment leaves a readable database whose responses are either fully written or absent.
Responses are append-only; a response whose (run, item) already has a usable answer is not
written again, which makes re-imports and resumed runs idempotent. Model answers arrive through
the single writer thread (`tasks.store.writer`).
"""
from __future__ import annotations

import atexit
import importlib.util
import json
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from tasks.errors import MathprobeError
from tasks.items import Completion, Item
from tasks.store.sql import apply as apply_sql
from tasks.store.sql import sql_files
from tasks.store.writer import ResponseWriter

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


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con = duckdb.connect(self.path)
        except duckdb.IOException as exc:
            raise MathprobeError(f"{self.path}: cannot open the DuckDB file ({exc})") from exc
        self._lock = threading.RLock()
        self._writer: ResponseWriter | None = None
        with self.transaction():
            commented = apply_sql(self.con, sql_files())
        if commented:                        # never leave a table's comments in the WAL
            self.con.execute("CHECKPOINT")

    # -- plumbing -------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                yield self.con
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")

    def query(self, sql: str, params: Any = None) -> list[tuple]:
        with self._lock:
            return self.con.execute(sql, params).fetchall()

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

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        with self._lock:
            self.con.close()
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
        with self.transaction() as con:
            con.execute(f"INSERT OR REPLACE INTO items SELECT * REPLACE (payload::JSON AS payload) "
                        f"FROM (SELECT {select})", params)

    def dataset_fingerprint(self, benchmark: str) -> str | None:
        rows = self.query("SELECT fingerprint FROM loaded_datasets WHERE benchmark = ?", [benchmark])
        return rows[0][0] if rows else None

    def set_dataset_fingerprint(self, benchmark: str, fingerprint: str) -> None:
        with self.transaction() as con:
            con.execute("INSERT OR REPLACE INTO loaded_datasets VALUES (?, ?, current_timestamp)",
                        [benchmark, fingerprint])

    def replace_table(self, table: str, columns: dict[str, tuple[str, list]]) -> None:
        """Reference tables loaded from the data directory (e.g. the WE-MATH knowledge tree)."""
        select, params = self._unnest(columns)
        with self.transaction() as con:
            con.execute(f"DELETE FROM {table}")
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}", params)

    # -- runs -----------------------------------------------------------------------------
    def start_run(self, spec: RunSpec, n_items: int) -> None:
        """Create the run, or reopen it for resuming; a run id is never reused for other work."""
        with self.transaction() as con:
            row = con.execute("SELECT benchmark, model, setting, params FROM runs WHERE run_id = ?",
                              [spec.run_id]).fetchone()
            if row is None:
                con.execute(
                    "INSERT INTO runs (run_id, benchmark, model, backend, setting, params, started_at,"
                    " status, n_items) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?)",
                    [spec.run_id, spec.benchmark, spec.model, spec.backend, spec.setting,
                     json.dumps(spec.params, sort_keys=True), _now(), n_items])
                return
            benchmark, model, setting, params = row
            stored = (benchmark, model, setting, json.loads(params) if params else {})
            wanted = (spec.benchmark, spec.model, spec.setting, spec.params)
            if stored != wanted:
                raise MathprobeError(
                    f"run id '{spec.run_id}' already holds benchmark={benchmark} model={model} "
                    f"setting={setting} params={stored[3]}; this call asks for benchmark="
                    f"{spec.benchmark} model={spec.model} setting={spec.setting} params="
                    f"{spec.params}. Use another --run-id.")
            con.execute("UPDATE runs SET status = 'running', finished_at = NULL, "
                        "n_items = greatest(coalesce(n_items, 0), ?) WHERE run_id = ?",
                        [n_items, spec.run_id])

    def finish_run(self, run_id: str, status: str) -> None:
        with self.transaction() as con:
            con.execute(
                "UPDATE runs SET status = ?, finished_at = ?, cost_usd = "
                "(SELECT coalesce(sum(cost_usd), 0) FROM responses WHERE run_id = ?) WHERE run_id = ?",
                [status, _now(), run_id, run_id])

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
        cs = [c for _, _, c in rows]
        select, params = self._unnest({
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
        with self.transaction() as con:
            inserted = con.execute(f"""
                INSERT INTO responses (run_id, item_id, request_hash, response, status, error,
                                       attempts, latency_s, input_tokens, output_tokens, cost_usd)
                SELECT $run_id, s.* FROM (SELECT {select}) s
                WHERE NOT EXISTS (SELECT 1 FROM responses r
                                  WHERE r.run_id = $run_id AND r.item_id = s.item_id
                                    AND r.status IN {ANSWERED_SQL})
                RETURNING response_id, item_id, status
                """, params).fetchall()
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
        with self.transaction() as con:
            con.execute(f"INSERT OR REPLACE INTO probe_scores (run_id, item_id, probe, score, detail) "
                        f"SELECT $run_id, item_id, $probe, score, detail FROM (SELECT {select})",
                        params)

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
        with self.transaction() as con:
            con.execute(f"""
                INSERT OR REPLACE INTO verdicts (run_id, item_id, grader, response_id, extracted,
                                                 correct, graded_at)
                SELECT $run_id, s.item_id, $grader, s.response_id, s.extracted, s.correct,
                       current_timestamp
                FROM (SELECT {select}) s""", params)


_STORES: dict[str, Store] = {}
_STORES_LOCK = threading.Lock()


def open_store(path: str | Path) -> Store:
    """The process's one `Store` for a database file (DuckDB admits a single writer)."""
    key = str(Path(path).resolve()) if str(path) != ":memory:" else ":memory:"
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = Store(key)
        return store


@atexit.register
def close_all() -> None:
    """Close every open store (an unclosed DuckDB connection at exit leaks native objects)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
    for store in stores:
        store.close()
