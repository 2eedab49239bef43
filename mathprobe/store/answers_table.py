"""What runs produce, in the store: responses (append-only; an item with an answer in the run is
never written again, so a resumed run or a re-import duplicates nothing), their token
log-probabilities, the verdicts graders give them, and probe scores."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import duckdb

from mathprobe.items import Completion
from mathprobe.store import run_data
from mathprobe.store.bulk import replace_keyed, unnest
from mathprobe.store.table_access import TableAccess

# Statuses that carry an answer to grade; `infra_failed` and `truncated` (cut at the token cap
# before the answer) are not: they are asked again later.
ANSWERED = ("ok", "refused", "missing")
ANSWERED_SQL = "('ok', 'refused', 'missing')"


class AnswersTable(TableAccess):
    """Mixed into `Store` (which gives `write`, `query` and `_new_response_ids`)."""

    def item_statuses(self, run_id: str) -> dict[str, str]:
        """item_id -> status of the response that counts, for every item the run has asked
        (its first sample: sample 0)."""
        return dict(self.query("SELECT item_id, status FROM current_responses WHERE run_id = ?",
                               [run_id]))

    def sample_statuses(self, run_id: str) -> dict[tuple[str, int], str]:
        """(item_id, sample) -> status of the response that counts, for every sample the run
        has asked (--samples K; a run of one sample has sample 0 only)."""
        return {(i, s): st for i, s, st in self.query(
            "SELECT item_id, sample, status FROM current_sample_responses WHERE run_id = ?",
            [run_id])}

    def spent(self, run_id: str) -> float:
        return self.query("SELECT coalesce(sum(cost_usd), 0) FROM responses WHERE run_id = ?",
                          [run_id])[0][0]

    def append_responses(self, run_id: str,
                         rows: Iterable[tuple[str, str, Completion]]) -> int:
        """Append (item_id, request_hash, completion) rows now; returns how many were new. The
        answer goes in `response`, a reasoning model's reasoning apart in `reasoning`; the
        sample it answers is the completion's (`Completion.sample`, 0 for a run of one).

        A row for an (item, sample) that already has an answer in this run is skipped, so
        writing the same batch twice (a resumed run, a re-import) never duplicates anything.
        """
        rows = list(rows)
        if not rows:
            return 0
        return self.write(lambda con: self._append_new(con, run_id, rows))

    def append_spooled(self, batches: list[tuple[str, dict[str, list]]]) -> int:
        """Store spooled batches ((batch id, rows by run), `mathprobe.store.spool`) in one write,
        with their ids in `store_meta`: a batch stored before (a recovery killed between commit
        and delete) is skipped whole, failed calls included. Returns how many were new."""
        def work(con: duckdb.DuckDBPyConnection) -> int:
            done = {k for (k,) in con.execute(
                "SELECT key FROM store_meta WHERE key IN (SELECT unnest($keys::VARCHAR[]))",
                {"keys": [f"spooled:{b}" for b, _ in batches]}).fetchall()}
            new = 0
            for batch, by_run in batches:
                if f"spooled:{batch}" in done:
                    continue
                new += sum(self._append_new(con, run_id, rows) for run_id, rows in by_run.items())
                con.execute("INSERT INTO store_meta VALUES (?, ?)",
                            [f"spooled:{batch}", "stored"])
            return new
        return self.write(work) if batches else 0

    def _append_new(self, con: duckdb.DuckDBPyConnection, run_id: str,
                    rows: list[tuple[str, str, Completion]]) -> int:
        """Inside a write: insert the rows whose (item, sample) has no answer in the run yet."""
        answered = {(i, s) for i, s in con.execute(
            f"SELECT item_id, sample FROM responses WHERE run_id = $run_id AND status IN "
            f"{ANSWERED_SQL} AND item_id IN (SELECT unnest($items::VARCHAR[]))",
            {"run_id": run_id, "items": sorted({r[0] for r in rows})}).fetchall()}
        rows = [r for r in rows if (r[0], r[2].sample) not in answered]
        if not rows:
            return 0
        ids = self._new_response_ids(con, len(rows))
        cs = [c for _, _, c in rows]
        select, params = unnest({
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
            "served_model": ("VARCHAR", [c.served_model for c in cs]),
            "reasoning": ("VARCHAR", [c.reasoning for c in cs]),
            "reasoning_tokens": ("BIGINT", [c.reasoning_tokens for c in cs]),
            "sample": ("INTEGER", [c.sample for c in cs]),
        })
        params["run_id"] = run_id
        con.execute(f"""
            INSERT INTO responses (response_id, run_id, item_id, request_hash, response, status,
                                   error, attempts, latency_s, input_tokens, output_tokens,
                                   cost_usd, served_model, reasoning, reasoning_tokens, sample)
            SELECT s.response_id, $run_id, s.* EXCLUDE (response_id) FROM (SELECT {select}) s
            """, params)
        run_data.touch(con, run_id, min(ids), max(ids))
        self._insert_logprobs(con, [(rid, r[2]) for rid, r in zip(ids, rows)
                                    if r[2].token_logprobs])
        return len(rows)

    @staticmethod
    def _insert_logprobs(con, inserted: list[tuple[int, Completion]]) -> None:
        """Token log-probabilities of the responses just inserted (generated tokens, or the scored
        prompt's), in the same transaction."""
        cols: dict[str, list] = {"response_id": [], "position": [], "token": [], "token_id": [],
                                 "logprob": [], "kind": []}
        for response_id, c in inserted:
            for pos, (token, token_id, logprob) in enumerate(c.token_logprobs or []):
                for k, v in zip(cols, (response_id, pos, token, token_id, logprob, c.logprob_kind)):
                    cols[k].append(v)
        if not cols["response_id"]:
            return
        select, params = unnest({
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
        select, params = unnest({
            "item_id": ("VARCHAR", [r[0] for r in rows]), "score": ("DOUBLE", [r[1] for r in rows]),
            "detail": ("VARCHAR", [r[2] for r in rows])})
        params.update(run_id=run_id, probe=probe)

        def work(con: duckdb.DuckDBPyConnection) -> None:
            replace_keyed(con, "probe_scores", ("run_id", "item_id", "probe"),
                          f"SELECT $run_id AS run_id, item_id, $probe AS probe, score, detail "
                          f"FROM (SELECT {select})", params)
            run_data.touch(con, run_id)
        self.write(work)

    # -- verdicts ---------------------------------------------------------------------------
    def ungraded(self, run_id: str, grader: str) -> list[tuple[int, str, str | None]]:
        """(response_id, item_id, response) of answers in the run that `grader` has not graded:
        of every sample the run asked (a run of one sample has sample 0 only)."""
        return self.query(f"""
            SELECT c.response_id, c.item_id, c.response
            FROM current_sample_responses c
            LEFT JOIN verdicts v ON v.run_id = c.run_id AND v.item_id = c.item_id
                                AND v.sample = c.sample AND v.grader = ?
                                AND v.response_id = c.response_id
            WHERE c.run_id = ? AND c.status IN {ANSWERED_SQL} AND v.item_id IS NULL
            ORDER BY c.response_id""", [grader, run_id])

    def write_verdicts(self, run_id: str, grader: str,
                       rows: Sequence[tuple[str, int, str | None, bool]]) -> None:
        """(item_id, response_id, extracted, correct) rows; a re-grade replaces the old verdict
        of the same item and sample (the sample is the graded response's).

        Each row must grade a response of this run and item: the views find a verdict by its
        response id alone (a run filter then reaches the verdicts through the responses), so a
        verdict pointing at another run's response is refused here, not silently misfiled."""
        if not rows:
            return
        select, params = unnest({
            "item_id": ("VARCHAR", [r[0] for r in rows]),
            "response_id": ("BIGINT", [r[1] for r in rows]),
            "extracted": ("VARCHAR", [r[2] for r in rows]),
            "correct": ("BOOLEAN", [r[3] for r in rows]),
        })
        params["run_id"] = run_id

        def work(con: duckdb.DuckDBPyConnection) -> None:
            stray = con.execute(f"""
                SELECT s.item_id, s.response_id, r.run_id, r.item_id
                FROM (SELECT {select}) s LEFT JOIN responses r ON r.response_id = s.response_id
                WHERE r.run_id IS DISTINCT FROM $run_id OR r.item_id IS DISTINCT FROM s.item_id
                LIMIT 1""", params).fetchone()
            if stray:
                item, rid, its_run, its_item = stray
                raise ValueError(
                    f"verdicts of {grader!r} for run {run_id!r}: item {item!r} names response "
                    f"{rid}, which is " + ("no response" if its_run is None else
                                           f"run {its_run!r}'s answer to item {its_item!r}"))
            replace_keyed(con, "verdicts", ("run_id", "item_id", "sample", "grader"), f"""
                SELECT $run_id AS run_id, s.item_id, $grader AS grader, s.response_id,
                       s.extracted, s.correct, current_timestamp AS graded_at, r.sample
                FROM (SELECT {select}) s JOIN responses r ON r.response_id = s.response_id""",
                          {**params, "grader": grader})
            run_data.touch(con, run_id)
        self.write(work)
