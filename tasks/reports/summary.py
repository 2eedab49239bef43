"""A run's report: the summary every run has (responses, failures, tokens, cost, the judge's
run), then its benchmark's paper-style tables (`Benchmark.report`). All read from the SQL views:
no metric is computed here."""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.text import Text

from mathprobe.tasks import registry
from mathprobe.tasks.backends import prices
from mathprobe.tasks.contract import Benchmark
from mathprobe.tasks.errors import MathprobeError
from mathprobe.tasks.store import Store


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


def build(store: Store, run_id: str, grader: str | None = None) -> dict[str, Any]:
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    if grader is not None:
        check_grader(store, {run_id: (run["benchmark"], run["setting"])}, grader)
    summary = {k: run[k] for k in ("run_id", "benchmark", "model", "backend", "setting", "status",
                                   "n_items", "n_responses", "n_not_asked", "n_ok", "n_missing",
                                   "n_infra_failed", "n_refused", "input_tokens",
                                   "output_tokens", "cost_usd")}
    summary["cost_usd"] = float(summary["cost_usd"] or 0.0)
    if summary["status"] == "running" and getattr(store, "read_only", False):
        # a read-only open succeeded, so no process holds the file for writing: the process
        # that left this run running is gone (its next write open records 'interrupted')
        summary["status"] = "interrupted"
    summary["priced"] = prices.is_priced(run["model"])
    grader = grader or default_grader(store, run_id, bench)
    # the judge runs' names first, then each one's summary by its id: run_summary pushes only an
    # equality on run_id down to the responses (a prefix filter would summarise every run)
    judges = [store.query_dicts(
        "SELECT run_id, model, n_items, n_ok, n_judge_failed, n_infra_failed, input_tokens, "
        "output_tokens, cost_usd FROM run_summary WHERE run_id = ?", [judge])[0]
        for (judge,) in store.query("SELECT run_id FROM runs WHERE starts_with(run_id, ?) "
                                    "ORDER BY run_id", [f"{run_id}@judge:"])]
    by_grader = dict(store.query("SELECT grader, count(*) FROM item_verdicts WHERE run_id = ? "
                                 "GROUP BY grader", [run_id]))
    for j in judges:
        j["priced"] = prices.is_priced(j["model"])
        j["failures"] = failure_reasons(store, j["run_id"])
        # which verdicts of its cascade came from the judge, which from the rules; its calls
        # answered from the content cache (nothing asked, nothing paid)
        j["n_from_judge"] = by_grader.get(f"judge:{j['model']}", 0)
        j["n_from_rules"] = by_grader.get(f"cascade:{j['model']}", 0) - j["n_from_judge"]
        j["n_cached"] = store.query("SELECT count(*) FROM current_responses WHERE run_id = ? AND "
                                    "status = 'ok' AND attempts = 0", [j["run_id"]])[0][0]
    return {"run": summary, "judges": judges, "failures": failure_reasons(store, run_id),
            **bench.report.build(store, run_id, grader)}


def failure_reasons(store: Store, run_id: str, limit: int = 5) -> list[dict[str, Any]]:
    """The most frequent reasons of the run's failed calls (infra_failed, judge_failed), with
    counts; the retry count that ends each message is left out so equal causes group."""
    return store.query_dicts(r"""
        SELECT status, regexp_replace(coalesce(error, '(no reason recorded)'),
                                      ' \((gave up|not retryable) after \d+ attempt\(s\)\)$', '')
                       AS reason,
               count(*) AS n
        FROM current_responses
        WHERE run_id = ? AND status IN ('infra_failed', 'judge_failed')
        GROUP BY ALL ORDER BY n DESC, reason LIMIT ?""", [run_id, limit])


def failure_lines(failures: list[dict[str, Any]], total: int) -> list[str]:
    """`failure_reasons` as lines for the terminal: '12 x HTTP 503: ... (infra_failed)'."""
    lines = [f"{f['n']} x {f['reason']} ({f['status']})" for f in failures]
    shown = sum(f["n"] for f in failures)
    if total > shown:
        lines.append(f"... and {total - shown} more failure(s) with other reasons")
    return lines


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


def render(report: dict[str, Any], width: int = 120) -> Group:
    run = report["run"]
    cost = (f"${run['cost_usd']:.4f}" if run["priced"]
            else "unknown (no price for this model in the price table)")
    head = Text.assemble(
        (f"run {run['run_id']}", "bold"),
        f"  {run['benchmark']}  {run['model']}  setting={run['setting']}  status={run['status']}\n",
        f"responses: {run['n_ok']} ok, {run['n_refused']} refused, {run['n_missing']} missing, "
        f"{run['n_infra_failed']} infra_failed, {run['n_not_asked']} not asked "
        f"(of {run['n_items']} items)\n",
        f"tokens: {run['input_tokens']} in, {run['output_tokens']} out; cost {cost}; "
        f"grader: {report['grader']}",
    )
    parts: list[Any] = [head]
    for j in report.get("judges", []):
        jcost = (f"${float(j['cost_usd'] or 0):.4f}" if j.get("priced", True)
                 else "unknown (no price for this model in the price table)")
        parts.append(Text(f"judge {j['model']}: asked about {j['n_items']} answers, {j['n_ok']} "
                          f"judged ({j.get('n_cached', 0)} from the cache), "
                          f"{j['n_judge_failed']} judge_failed (no verdict in the reply), "
                          f"{j['n_infra_failed']} failed calls; tokens {j['input_tokens']} in, "
                          f"{j['output_tokens']} out; cost {jcost}; cascade:{j['model']} = "
                          f"{j.get('n_from_rules', 0)} verdicts of the rules + "
                          f"{j.get('n_from_judge', 0)} of the judge"))
        for line in failure_lines(j.get("failures", []),
                                  j["n_judge_failed"] + j["n_infra_failed"]):
            parts.append(Text(f"  judge {line}", style="yellow"))
    if run["n_infra_failed"]:
        parts.append(Text(f"{run['n_infra_failed']} call(s) failed (infra_failed): not graded, "
                          "left out of the figures; re-drive them with --retry-failed",
                          style="yellow"))
        for line in failure_lines(report.get("failures", []), run["n_infra_failed"]):
            parts.append(Text(f"  {line}", style="yellow"))
    parts += registry.get(run["benchmark"]).report.render(report, width)
    return Group(*parts)


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    console.print(render(report, console.width))
