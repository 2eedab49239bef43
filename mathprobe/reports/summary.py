"""A run's report: the summary every run has (responses, failures, tokens, cost, the judge's
run), then its benchmark's declared figures and notes (`Benchmark.comparison`, drawn by
`mathprobe.reports.terminal`). All read from the SQL views: no metric is computed here."""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.text import Text

from mathprobe import registry
from mathprobe.backends import prices
from mathprobe.reports import notes, terminal
from mathprobe.reports.selection import check_grader, default_grader, default_graders, find_run  # noqa: F401
from mathprobe.store import Store


def build(store: Store, run_id: str, grader: str | None = None) -> dict[str, Any]:
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    if grader is not None:
        check_grader(store, {run_id: (run["benchmark"], run["setting"])}, grader)
    summary: dict[str, Any] = {k: run.get(k) for k in (
        "run_id", "benchmark", "model", "backend", "setting", "status", "n_items", "n_responses",
        "n_not_asked", "n_ok", "n_missing", "n_infra_failed", "n_refused", "n_truncated",
        "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd")}
    summary["n_truncated"] = summary["n_truncated"] or 0
    summary["samples"] = run.get("samples") or 1
    if summary["samples"] > 1:      # --samples K: every sample's answers (the counts above: 0's)
        summary["sampled"] = {k: v for k, v in (run.get("sampled") or {}).items()
                              if k != "run_id"}
    summary["cost_usd"] = float(summary["cost_usd"] or 0.0)
    if summary["status"] == "running" and getattr(store, "read_only", False):
        # a read-only open succeeded, so no process holds the file for writing: the process
        # that left this run running is gone (its next write open records 'interrupted')
        summary["status"] = "interrupted"
    summary["priced"] = prices.is_priced(run["model"])
    grader = grader or default_grader(store, run_id, bench)
    # the judge runs' names first, then each one's summary by its id: run_summary pushes only an
    # equality on run_id down to the responses (a prefix filter would summarise every run)
    keep = ("run_id", "model", "n_items", "n_ok", "n_judge_failed", "n_infra_failed",
            "n_truncated", "input_tokens", "output_tokens", "cost_usd")
    judges: list[dict[str, Any]] = [{k: row.get(k) for k in keep} for row in (store.query_dicts(
        "SELECT * FROM run_summary WHERE run_id = ?", [judge])[0]
        for (judge,) in store.query("SELECT run_id FROM runs WHERE starts_with(run_id, ?) "
                                    "ORDER BY run_id", [f"{run_id}@judge:"]))]
    by_grader = dict(store.query("SELECT grader, count(*) FROM item_verdicts WHERE run_id = ? "
                                 "GROUP BY grader", [run_id]))
    for j in judges:
        j["priced"] = prices.is_priced(j["model"])
        j["failures"] = notes.failure_reasons(store, j["run_id"])
        # which verdicts of its cascade came from the judge, which from the rules; its calls
        # answered from the content cache (nothing asked, nothing paid)
        j["n_from_judge"] = by_grader.get(f"judge:{j['model']}", 0)
        j["n_from_rules"] = by_grader.get(f"cascade:{j['model']}", 0) - j["n_from_judge"]
        j["n_cached"] = store.query("SELECT count(*) FROM current_responses WHERE run_id = ? AND "
                                    "status = 'ok' AND attempts = 0", [j["run_id"]])[0][0]
    figures = terminal.build(store, bench, run, grader)
    return {"run": summary, "judges": judges, "failures": notes.failure_reasons(store, run_id),
            "failed_calls": notes.failed_calls(store, summary),
            **figures, "notes": notes.run_notes(store, bench.name, run, grader)}


def render(report: dict[str, Any], width: int = 120) -> Group:
    run = report["run"]
    cost = (f"${run['cost_usd']:.4f}" if run["priced"]
            else "unknown (no price for this model in the price table)")
    head = Text.assemble(
        (f"run {run['run_id']}", "bold"),
        f"  {run['benchmark']}  {run['model']}  setting={run['setting']}  status={run['status']}\n",
        f"responses: {run['n_ok']} ok, {run['n_refused']} refused, {run['n_missing']} missing, "
        f"{run['n_infra_failed']} infra_failed, "
        + (f"{run['n_truncated']} truncated, " if run.get("n_truncated") else "")
        + f"{run['n_not_asked']} not asked (of {run['n_items']} items)\n",
        _samples_line(run),
        f"tokens: {run['input_tokens']} in, {run['output_tokens']} out"
        + (f" ({run['reasoning_tokens']} of them reasoning)"
           if run.get("reasoning_tokens") is not None else "")
        + f"; cost {cost}; grader: {report['grader']}",
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
        for line in notes.failure_lines(j.get("failures", []),
                                        j["n_judge_failed"] + j["n_infra_failed"]):
            parts.append(Text(f"  judge {line}", style="yellow"))
    parts += [Text(line, style="yellow") for line in report.get("failed_calls", [])]
    parts += terminal.render(report, width)
    return Group(*parts)


def _samples_line(run: dict[str, Any]) -> str:
    """The line of a run asked --samples K: every sample's answers by status ('' for K = 1)."""
    s = run.get("sampled")
    if not s:
        return ""
    return (f"samples: {run['samples']} per item, {s['n_ok']} ok, {s['n_refused']} refused, "
            f"{s['n_infra_failed']} infra_failed, "
            + (f"{s['n_truncated']} truncated, " if s.get("n_truncated") else "")
            + f"{s['n_not_asked']} not asked (of {s['n_pairs']} answers; the line above is "
            "sample 0's)\n")


def figure_pairs(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) pairs of a run's declared figures, for a sweep's table."""
    return terminal.flat(report)


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    console.print(render(report, console.width))
