"""Which run a report is about and which grader it is read under: the run's row (an error that
lists the store's runs where it is not there), a `--grader` checked against the runs' graders,
and the grader each run is reported under by default. Shared by the run report, `compare`, the
run card and the HTML report."""
from __future__ import annotations

from typing import Any

from mathprobe import registry
from mathprobe.contract import Benchmark
from mathprobe.errors import MathprobeError
from mathprobe.store import Store


def find_run(store: Store, run_id: str) -> dict[str, Any]:
    """The run's `run_summary` row; a MathprobeError listing the store's runs if there is none."""
    run = store.run(run_id)
    if run is None:
        known = [r[0] for r in store.query("SELECT run_id FROM runs ORDER BY started_at")]
        raise MathprobeError(f"no run {run_id!r} in {store.path}"
                             + (f"; runs there: {', '.join(known)}" if known else "; it holds no runs"))
    return run


def check_grader(store: Store, runs: dict[str, tuple[str, str]], grader: str) -> None:
    """`--grader` names a grader of every run given (run id -> (benchmark, setting)): one its
    benchmark defines or one whose verdicts the run holds (a judge's, a cascade, an imported
    file's); otherwise the error that lists them. A probe run (contamination, classification)
    has figures no grader decides: any name is fine there."""
    import difflib

    held: dict[str, set[str]] = {}
    for run_id, g in store.query(
            "SELECT DISTINCT v.run_id, v.grader FROM verdicts v SEMI JOIN "
            "(SELECT unnest(?::VARCHAR[]) AS run_id) w USING (run_id)", [list(runs)]):
        held.setdefault(run_id, set()).add(g)
    for run_id, (name, setting) in runs.items():
        bench = registry.get(name)
        if any(p.setting == setting for p in bench.probes.values()):
            continue
        valid = sorted(held.get(run_id, set()) | set(bench.graders))
        if grader not in valid:
            close = difflib.get_close_matches(grader, valid, n=1)
            raise MathprobeError(f"--grader {grader!r}: not a grader of run {run_id} ({name})"
                                 + (f"; did you mean {close[0]}?" if close else "")
                                 + f"; its graders: {', '.join(valid)}")


def default_grader(store: Store, run_id: str, bench: Benchmark) -> str:
    """The grader a run is reported under: a judged run's cascade (where its benchmark's judge
    says the cascade is the default); an imported run the verdicts its file carried (e.g. the
    authors' judge); otherwise its benchmark's first rule grader."""
    return default_graders(store, {run_id: bench})[run_id]


def default_graders(store: Store, runs: dict[str, Benchmark]) -> dict[str, str]:
    """`default_grader` of many runs (run id -> its benchmark) in one query each."""
    ids = list(runs)
    # a join on run_id (not a function of it) lets the scan of verdicts skip other runs' rows
    cascades = dict(store.query("SELECT v.run_id, min(v.grader) FROM verdicts v "
                                "SEMI JOIN (SELECT unnest(?::VARCHAR[]) AS run_id) w USING (run_id) "
                                "WHERE v.grader LIKE 'cascade:%' GROUP BY v.run_id", [ids]))
    imported = dict(store.query("SELECT run_id, CAST(params->'imported_verdicts'->>0 AS VARCHAR) "
                                "FROM runs WHERE list_contains(?, run_id)", [ids]))
    return {r: (cascades.get(r) if bench.judge is not None and bench.judge.cascade_is_default
                else None) or imported.get(r) or bench.graders[0] for r, bench in runs.items()}
