"""The runs of a store: what a run is (`RunSpec`), opening one or reopening it to resume (never
for other work under the same id), finishing it with its status and cost, and its summary."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb

from mathprobe.errors import MathprobeError
from mathprobe.store import run_data
from mathprobe.store.table_access import TableAccess


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class RunSpec:
    run_id: str
    benchmark: str
    model: str
    backend: str
    setting: str
    params: dict[str, Any]
    flow_run_id: str | None = None      # the Prefect flow run doing the work, if any
    samples: int | None = None          # answers asked of each item (--samples K; None: the
    #                                     run's own, 1 for a new run; may rise, never fall)


# The token caps a run may raise when it resumes: what was whole stays as it was, what was cut
# at the old cap (`truncated`) is asked again under the new one (docs/reasoning-models.md).
CAPS = ("params.max_tokens", "params.max_completion_tokens")


def _raised(key: str, stored: dict, wanted: dict) -> bool:
    """`wanted` lifts the cap `key` of `stored` (a larger number, or no cap at all)."""
    if key not in CAPS or key not in stored:
        return False
    old, new = stored[key], wanted.get(key)
    return new is None or (isinstance(new, int) and isinstance(old, int) and new > old)


def check_same_work(spec: RunSpec, row: tuple) -> bool:
    """A run id is never reused for other work: a MathprobeError showing only what differs
    between the stored run (benchmark, model, setting, params) and `spec`. Only a token cap
    may be raised (`CAPS`); returns whether `spec` raises one."""
    benchmark, model, setting, params = row
    stored = {"benchmark": benchmark, "model": model, "setting": setting,
              **{f"params.{k}": v for k, v in (json.loads(params) if params else {}).items()}}
    wanted = {"benchmark": spec.benchmark, "model": spec.model, "setting": spec.setting,
              **{f"params.{k}": v for k, v in spec.params.items()}}
    changed = [k for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k)]
    differs = [k for k in changed if not _raised(k, stored, wanted)]
    if differs:
        def show(d: dict) -> str:
            return " ".join(f"{k}={d[k]}" if k in d else f"{k} unset" for k in differs)
        raise MathprobeError(f"run id '{spec.run_id}' already holds other work: it has "
                             f"{show(stored)}; this call asks for {show(wanted)}. Use another "
                             "--run-id, or the same arguments to resume it (only a larger "
                             "--max-tokens may change)")
    return bool(changed)


def check_samples(run_id: str, samples: int | None, stored: int) -> None:
    """A resumed run may ask more samples of each item (--samples K: the missing ones are
    asked), never fewer (its answers would count nowhere): the one-line error."""
    if samples is not None and samples < stored:
        raise MathprobeError(f"--samples {samples}: run '{run_id}' already asks {stored} "
                             f"samples of each item; give --samples {stored} or more (a larger "
                             "K asks only the samples it lacks), or another --run-id")


class RunsTable(TableAccess):
    """Mixed into `Store` (which gives `write` and `query_dicts`)."""

    def start_run(self, spec: RunSpec, n_items: int) -> None:
        """Create the run, or reopen it for resuming; a run id is never reused for other work."""
        self.write(lambda con: self._start_run(con, spec, n_items))

    @staticmethod
    def _start_run(con: duckdb.DuckDBPyConnection, spec: RunSpec, n_items: int) -> None:
        row = con.execute("SELECT benchmark, model, setting, params, samples FROM runs "
                          "WHERE run_id = ?", [spec.run_id]).fetchone()
        if row is None:
            con.execute(
                "INSERT INTO runs (run_id, benchmark, model, backend, setting, params, started_at,"
                " status, n_items, flow_run_id, samples) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', "
                "?, ?, ?)",
                [spec.run_id, spec.benchmark, spec.model, spec.backend, spec.setting,
                 json.dumps(spec.params, sort_keys=True), now(), n_items, spec.flow_run_id,
                 spec.samples or 1])
            return
        if check_same_work(spec, row[:4]):    # a raised cap: the run's params from now on
            con.execute("UPDATE runs SET params = ? WHERE run_id = ?",
                        [json.dumps(spec.params, sort_keys=True), spec.run_id])
        check_samples(spec.run_id, spec.samples, row[4] or 1)
        con.execute("UPDATE runs SET status = 'running', finished_at = NULL, "
                    "n_items = greatest(coalesce(n_items, 0), ?), "
                    "flow_run_id = coalesce(?, flow_run_id), "
                    "samples = greatest(coalesce(samples, 1), coalesce(?, 1)) WHERE run_id = ?",
                    [n_items, spec.flow_run_id, spec.samples, spec.run_id])

    def finish_run(self, run_id: str, status: str, only_running: bool = False) -> None:
        """Record the run's end, and store the figures of the runs whose data changed (this
        one, and the answer run a judge run judged) in the same write. `only_running`: only if
        the run is `running` (a run stopped before it was reopened keeps its status)."""
        def work(con: duckdb.DuckDBPyConnection) -> None:
            con.execute(
                "UPDATE runs SET status = ?, finished_at = ?, cost_usd = (SELECT coalesce("
                "sum(cost_usd), 0) FROM responses WHERE run_id = ?) WHERE run_id = ?"
                + (" AND status = 'running'" if only_running else ""),
                [status, now(), run_id, run_id])
            run_data.store_figures(con)
        self.write(work)

    def end_run(self, run_id: str, status: str) -> None:
        """Record only the run's end status and time (no figures: one small write)."""
        self.write(lambda con: con.execute(
            "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
            [status, now(), run_id]))

    def set_card(self, run_id: str, facts: dict[str, Any]) -> None:
        """Merge `facts` into the run's recorded card (`runs.card`, mathprobe/runs/card.py): keys
        given replace the stored ones; a `sessions` list is appended to, one entry per start."""
        def work(con: duckdb.DuckDBPyConnection) -> None:
            row = con.execute("SELECT card FROM runs WHERE run_id = ?", [run_id]).fetchone()
            if row is None:
                return
            card = json.loads(row[0]) if row[0] else {}
            sessions = card.get("sessions", []) + list(facts.get("sessions", []))
            card.update(facts)
            if sessions:
                card["sessions"] = sessions
            con.execute("UPDATE runs SET card = ? WHERE run_id = ?",
                        [json.dumps(card, sort_keys=True, default=str), run_id])
        self.write(work)

    def card_facts(self, run_id: str) -> dict[str, Any] | None:
        """The run's recorded card facts; None for a run made before run cards."""
        try:
            rows = self.query("SELECT card FROM runs WHERE run_id = ?", [run_id])
        except duckdb.BinderException:      # a read-only store of an older mathprobe
            return None
        return json.loads(rows[0][0]) if rows and rows[0][0] else None

    def run_samples(self, run_id: str) -> int:
        """How many answers the run asks of each item (runs.samples; 1 for a run of one)."""
        rows = self.query("SELECT samples FROM runs WHERE run_id = ?", [run_id])
        return (rows[0][0] or 1) if rows else 1

    def run(self, run_id: str) -> dict[str, Any] | None:
        """The run's `run_summary` row; for a run asked --samples K > 1, with `sampled`: its
        `sample_summary` row (every sample's answers by status, what is not asked yet)."""
        rows = self.query_dicts("SELECT * FROM run_summary WHERE run_id = ?", [run_id])
        if not rows:
            return None
        run = rows[0]
        if run.get("samples", 1) > 1:
            found = self.query_dicts("SELECT * FROM sample_summary WHERE run_id = ?", [run_id])
            run["sampled"] = found[0] if found else None
        return run

    def stored_run(self, run_id: str) -> dict[str, Any]:
        """`run(run_id)` for a run known to be stored (one this process started, or listed
        in `runs`); a LookupError naming it where it is not."""
        run = self.run(run_id)
        if run is None:
            raise LookupError(f"run {run_id} is not in the store")
        return run
