"""The batches a run handed to a service's batch API (`batches`, `batch_requests`:
sql/core/tables/batches.sql, sql/core/tables/batch_requests.sql; docs/batches.md).

A submission is written before the service is asked (status `submitting`, its requests
`pending`), and given the service's id as soon as it answers: a command killed at any moment
finds every batch again. A batch's results are stored in `responses` in the same transaction
that marks their requests `answered`, so results fetched twice (a command killed while it
stored them) are stored once; a request a batch did not answer is marked `rebatched` in the
transaction that writes the batch that asks it again. Writes follow the store's rules for a
lake too (no RETURNING, no INSERT OR REPLACE)."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import duckdb

from mathprobe.items import Completion
from mathprobe.store.bulk import unnest
from mathprobe.store.table_access import TableAccess

OPEN = "collected_at IS NULL AND status <> 'void'"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class BatchesTable(TableAccess):
    """Mixed into `Store` (which gives `write`, `query`, `query_dicts` and `_append_new`)."""

    def open_submission(self, submission: str, run_id: str, backend: str, model: str,
                        endpoint: str, attempt: int,
                        rows: Sequence[tuple[str, str, str, int]],
                        replaces: dict[str, list[str]] | None = None) -> None:
        """Write a submission (status `submitting`) and its requests (custom_id, item_id,
        request_hash, sample), all `pending`; the requests of earlier batches it asks again
        (`replaces`: submission -> custom_ids) become `rebatched` in the same transaction."""
        select, params = unnest({"custom_id": ("VARCHAR", [r[0] for r in rows]),
                                 "item_id": ("VARCHAR", [r[1] for r in rows]),
                                 "request_hash": ("VARCHAR", [r[2] for r in rows]),
                                 "sample": ("INTEGER", [r[3] for r in rows])})
        params.update(submission=submission, run_id=run_id)

        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute("INSERT INTO batches (submission, run_id, backend, model, endpoint, "
                        "attempt, n_requests, status, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
                        "'submitting', ?)", [submission, run_id, backend, model, endpoint,
                                             attempt, len(rows), _now()])
            con.execute(f"INSERT INTO batch_requests (submission, custom_id, run_id, item_id, "
                        f"request_hash, state, sample) SELECT $submission, s.custom_id, "
                        f"$run_id, s.item_id, s.request_hash, 'pending', s.sample "
                        f"FROM (SELECT {select}) s", params)
            for old, ids in (replaces or {}).items():
                con.execute("UPDATE batch_requests SET state = 'rebatched' WHERE submission = ? "
                            "AND list_contains(?::VARCHAR[], custom_id)", [old, ids])
        self.write(work)

    def submission_accepted(self, submission: str, batch_id: str,
                            input_file_id: str | None) -> None:
        self.write(lambda con: con.execute(
            "UPDATE batches SET batch_id = ?, input_file_id = ?, status = 'accepted' "
            "WHERE submission = ?", [batch_id, input_file_id, submission]))

    def submission_void(self, submission: str, why: str) -> None:
        """A submission the service never accepted: its requests are asked again."""
        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute("UPDATE batches SET status = 'void', error = ?, collected_at = ? "
                        "WHERE submission = ?", [why, _now(), submission])
            con.execute("UPDATE batch_requests SET state = 'void' WHERE submission = ?",
                        [submission])
        self.write(work)

    def open_batches(self, run_id: str) -> list[dict[str, Any]]:
        """The run's batches not yet collected (unconfirmed ones included), oldest first."""
        return self.query_dicts(f"SELECT * FROM batches WHERE run_id = ? AND {OPEN} "
                                "ORDER BY submitted_at, submission", [run_id])

    def batch_ids(self) -> set[str]:
        """Every batch id the store holds (for a lost submission: none of these is it)."""
        return {b for (b,) in self.query("SELECT batch_id FROM batches WHERE batch_id IS NOT NULL")}

    def batch_polled(self, submission: str, status: str, done: int, failed: int,
                     ended: bool, error: str | None = None) -> None:
        now = _now()
        self.write(lambda con: con.execute(
            "UPDATE batches SET status = ?, n_done = ?, n_failed = ?, error = ?, polled_at = ?, "
            "ended_at = CASE WHEN ? THEN coalesce(ended_at, ?) END WHERE submission = ?",
            [status, done, failed, error, now, ended, now, submission]))

    def batch_pending(self, submission: str) -> dict[str, tuple[str, int, str]]:
        """custom_id -> (item_id, sample, request_hash) of the batch's requests not yet
        answered."""
        return {c: (i, s, h) for c, i, s, h in self.query(
            "SELECT custom_id, item_id, sample, request_hash FROM batch_requests "
            "WHERE submission = ? AND state = 'pending'", [submission])}

    def pending_in_batches(self, run_id: str) -> set[tuple[str, int]]:
        """(item, sample) pairs of the run waiting in an open batch: not submitted again."""
        return {(i, s) for i, s in self.query(
            f"SELECT r.item_id, r.sample FROM batch_requests r JOIN batches b "
            f"USING (submission) WHERE r.run_id = ? AND r.state = 'pending' AND b.{OPEN}",
            [run_id])}

    def store_batch_answers(self, run_id: str, submission: str,
                            rows: Sequence[tuple[str, str, str, Completion]]) -> int:
        """Store results of a batch, (custom_id, item_id, request_hash, completion), in
        `responses` (an item already answered is skipped, as for any answer) and mark their
        requests answered, in one transaction. Returns how many responses were new."""
        if not rows:
            return 0

        def work(con: duckdb.DuckDBPyConnection) -> int:
            new = self._append_new(con, run_id, [(i, h, c) for _, i, h, c in rows])
            con.execute("UPDATE batch_requests SET state = 'answered' WHERE submission = ? "
                        "AND list_contains(?::VARCHAR[], custom_id)",
                        [submission, [r[0] for r in rows]])
            return new
        return self.write(work)

    def batch_collected(self, submission: str) -> None:
        self.write(lambda con: con.execute(
            "UPDATE batches SET collected_at = ? WHERE submission = ?", [_now(), submission]))
