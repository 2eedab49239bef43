"""Paper Table 5 from two runs, as `compare --baseline BEFORE AFTER` and the HTML report show it:
the rows of the view macro `conceptmath_targeted` (the baseline's weakest concepts, their
accuracy before and after, "Avg Acc. (over k concepts)", "Avg Acc. (over N concepts)",
"Overall Acc.") with each row's paired test: McNemar's exact test over the problems both runs
graded (mathprobe.reports.stats.mcnemar, the test `compare` uses for every right/wrong figure).
A mean of concept accuracies gets the test of the problems under its concepts."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathprobe.figures import Section
from mathprobe.reports.format import fmt_diff, fmt_interval, fmt_p, pct
from mathprobe.reports.stats import mcnemar
from mathprobe.store import Store


def rows(store: Store, before: str, after: str, k: int, grader: str) -> list[dict[str, Any]]:
    """conceptmath_targeted's rows, each with `p` (McNemar's exact p-value)."""
    out = store.query_dicts("SELECT * FROM conceptmath_targeted(?, ?, ?, grader_name := ?) "
                            "ORDER BY system, ord", [before, after, k, grader])
    for r in out:
        r["p"] = float(mcnemar(r["only_before"], r["only_after"])) if r["n_paired"] else None
    return out


def _acc(r: Mapping[str, Any], side: str) -> str:
    value = r[f"{side}_acc"]
    if value is None:
        return "-"
    ci = fmt_interval(r[f"{side}_low"], r[f"{side}_high"])
    return pct(value) + (f" {ci}" if ci else "")


def sections(store: Store, runs: Sequence[Mapping[str, Any]], labels: Mapping[str, str],
             k: int) -> list[Section]:
    """One section per run after the baseline (runs[0]), under the baseline's grader."""
    if len(runs) < 2:
        return []
    base = runs[0]
    out = []
    for run in runs[1:]:
        found = rows(store, base["run_id"], run["run_id"], k, base["grader"])
        if not found:
            continue
        shown = tuple((labels.get(r["system"], r["system"]), r["row"], _acc(r, "before"),
                       _acc(r, "after"),
                       fmt_diff(r["after_acc"] - r["before_acc"])
                       if r["after_acc"] is not None else "-",
                       f"{r['before_n']} / {r['after_n'] if r['after_n'] is not None else '-'}",
                       f"{r['only_before']} / {r['only_after']} of {r['n_paired']}",
                       fmt_p(r["p"])) for r in found)
        out.append(Section(
            f"Targeted improvement (paper Table 5): {base['run_id']} -> {run['run_id']}",
            ("system", "concept / row", "before (%)", "after (%)", "change (points)",
             "n before / after", "McNemar: right only before / only after", "p"),
            shown,
            f"the {k} weakest level-3 concepts of {base['run_id']} per system (view macro "
            "conceptmath_lowest_k), their accuracy in both runs with 95% Wilson intervals, then "
            "the paper's summary rows: Avg Acc. = the unweighted mean of the concepts' "
            "accuracies (over the weak ones; over every concept both runs graded), Overall "
            f"Acc. = right / graded over the system; grader {base['grader']}; p: exact McNemar "
            "over the problems both runs graded, unadjusted (view macro conceptmath_targeted)"))
    return out
