"""What a reader of a run's figures must know beside them, written once for every output: the
answers cut at the token cap, the failed calls and why they failed, and the benchmark's own
notes (`Comparison.notes`: WE-MATH's problems left out and what tools dividing by N = 525
print, CMMaTH's undecided answers and what the figure would be were they right, ConceptMath's
grader and unmastered concepts).

`report` prints them under its tables and `report --json` lists them ("notes", "failed_calls"),
the Prefect artifact has them as its Notes, and the HTML report shows each run's in its
benchmark's section (`attach`): the HTML once dropped them all."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mathprobe import registry
from mathprobe.store import Store


def run_notes(store: Store, benchmark: str, run: Mapping[str, Any], grader: str) -> list[str]:
    """The notes on one run (its `run_summary` row) under `grader`: its cut answers' note,
    its samples' (--samples K), then its benchmark's."""
    bench = registry.get(benchmark)
    cut = truncation_note(store, run["run_id"], run.get("n_truncated") or 0)
    return (([cut] if cut else []) + samples_notes(run, grader, bench.graders[0])
            + bench.comparison.notes(store, run, grader))


def samples_notes(run: Mapping[str, Any], grader: str, rule_grader: str) -> list[str]:
    """What a reader of a run asked --samples K must know: which sample the paper's figures
    are, what the sampled figures left out (failed or cut samples) or lack (not asked), and
    that a judge's graders have none (a judge judges sample 0)."""
    k, sampled = run.get("samples") or 1, run.get("sampled") or {}
    if k <= 1:
        return []
    out = [f"{k} samples per item: the paper's figures (the tables above the sampled ones) are "
           "those of sample 0, the request a run without --samples sends; the sampled figures "
           f"(mean over samples, pass@k, maj@k, spread) are over all {k} (docs/sampling.md)"]
    if grader.startswith(("judge:", "cascade:")):
        out.append(f"a judge judges sample 0 only: the sampled figures are the rule graders', "
                   f"e.g. mathprobe report --grader {rule_grader}")
    failed = (sampled.get("n_infra_failed") or 0) + (sampled.get("n_truncated") or 0)
    if failed or sampled.get("n_not_asked"):
        out.append(f"of the {sampled.get('n_pairs')} answers asked for, {failed} failed or were "
                   f"cut (left out of the sampled figures; --retry-failed asks them again) and "
                   f"{sampled.get('n_not_asked') or 0} are not asked yet (the same command asks "
                   "them)")
    return out


def failed_calls(store: Store, run: Mapping[str, Any]) -> list[str]:
    """The run's failed calls: how many, that they are in no figure and how to re-ask them,
    then their most frequent reasons; [] when none failed."""
    n = run.get("n_infra_failed") or 0
    if not n:
        return []
    return [f"{n} call(s) failed (infra_failed): not graded, left out of the figures; re-drive "
            "them with --retry-failed",
            *(f"  {line}" for line in failure_lines(failure_reasons(store, run["run_id"]), n))]


def attach(store: Store, result) -> None:
    """Each compared run's notes and failed calls, into its benchmark's comparison
    (`BenchComparison.notes`: run id -> lines), for the renderers that show them."""
    for b in result.benchmarks:
        b.notes = {r["run_id"]: failed_calls(store, r)
                   + run_notes(store, b.benchmark, r, r["grader"]) for r in b.runs}


def truncation_note(store: Store, run_id: str, n: int) -> str | None:
    """The note on a run's replies cut at the token cap before their answer (`truncated`):
    how many, at which cap (the run's max_completion_tokens or max_tokens, as sent), and what
    to do; None when there are none."""
    if not n:
        return None
    (params,), = store.query("SELECT params FROM runs WHERE run_id = ?", [run_id])
    sent = json.loads(params) if params else {}
    cap = sent.get("max_completion_tokens", sent.get("max_tokens"))
    at = f"at {cap} tokens" if cap is not None else "at the model's own token limit"
    return (f"{n} answer(s) cut {at} inside the reasoning or before the answer (truncated), "
            "left out of every figure like failed calls: re-ask them with a larger --max-tokens "
            "(the same command with it asks only those)")


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
