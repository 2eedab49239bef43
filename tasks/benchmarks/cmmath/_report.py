"""CMMaTH's paper-style report: Table 4's layout (overall accuracy, by answer type, by grade
group, by visual subject) and the knowledge-point mastery SSR@alpha, read from the views, naming
the grader and how many answers it left undecided."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from tasks.reports.format import pct, row_or_column
from tasks.store import Store

GRADE_GROUPS = {1: "Elementary", 2: "Junior", 3: "Senior"}
ANSWER_TYPES = {"choice": "Choice", "free_form": "Free-form"}
ALPHAS = (0.1, 0.2, 0.3, 0.6)


def build(store: Store, run_id: str, grader: str) -> dict[str, Any]:
    args = [run_id, grader]
    acc = {r["answer_type"]: r for r in store.query_dicts(
        "SELECT answer_type, n, correct, accuracy FROM cmmath_accuracy "
        "WHERE run_id = ? AND grader = ?", args)}
    grades = store.query_dicts(
        "SELECT grade_group, n, correct, accuracy FROM cmmath_grade_accuracy "
        "WHERE run_id = ? AND grader = ? ORDER BY grade_group", args)
    cats = store.query_dicts(
        "SELECT category, n, correct, accuracy FROM cmmath_category_accuracy "
        "WHERE run_id = ? AND grader = ? ORDER BY n DESC, category", args)
    ssr = store.query_dicts(
        "SELECT alpha, n_points, ssr FROM cmmath_ssr WHERE run_id = ? AND grader = ? "
        "ORDER BY alpha", args)
    cov = store.query_dicts(
        "SELECT n_answers, n_decided, n_undecided FROM cmmath_grader_coverage "
        "WHERE run_id = ? AND grader = ?", args)
    if not cov:      # a grader with no verdicts in a run that is not CMMaTH's (or no run)
        n = store.query("SELECT count(*) FROM current_responses WHERE run_id = ? AND status IN "
                        "('ok', 'refused', 'missing')", [run_id])[0][0]
        cov = [{"n_answers": n, "n_decided": 0, "n_undecided": n}]
    return {
        "grader": grader,
        "coverage": cov[0],
        "accuracy": {
            "overall": acc.get("all"),
            "answer_types": {t: acc.get(t) for t in ANSWER_TYPES},
            "grade_groups": {g["grade_group"]: g for g in grades},
            "categories": {c["category"]: c for c in cats},
        },
        "ssr": {float(s["alpha"]): s for s in ssr},
    }


def _acc(row: dict[str, Any] | None) -> float | None:
    return None if row is None else row["accuracy"]


def _cells(report: dict[str, Any]) -> list[tuple[str, str]]:
    acc = report["accuracy"]
    cells = [("Overall", pct(_acc(acc["overall"])))]
    cells += [(label, pct(_acc(acc["answer_types"].get(t)))) for t, label in ANSWER_TYPES.items()]
    cells += [(label, pct(_acc(acc["grade_groups"].get(g)))) for g, label in GRADE_GROUPS.items()]
    return cells


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    acc = report["accuracy"]
    cov = report["coverage"]
    grader = report["grader"]
    parts: list[Any] = []
    cells = _cells(report)
    t1 = row_or_column(f"CMMaTH accuracy (%) — paper Table 4 layout (grader: {grader})", cells,
                       width, "accuracy", col_width=11)
    parts.append(t1)
    t2 = Table(title="CMMaTH accuracy (%) by visual subject", title_justify="left")
    t2.add_column("visual subject")
    t2.add_column("n", justify="right")
    t2.add_column("accuracy", justify="right")
    for cat, row in acc["categories"].items():
        t2.add_row(cat, str(row["n"]), pct(row["accuracy"]))
    parts.append(t2)
    t3 = Table(title="Knowledge-point mastery: SSR@alpha (%) = share of knowledge points with "
               "accuracy > alpha", title_justify="left")
    for a in ALPHAS:
        t3.add_column(f"SSR@{a:g}", justify="right")
    t3.add_column("points", justify="right")
    n_points = next((s["n_points"] for s in report["ssr"].values()), 0)
    t3.add_row(*(pct(report["ssr"][a]["ssr"]) if a in report["ssr"] else "-" for a in ALPHAS),
               str(n_points))
    parts.append(t3)
    note = (f"grader '{grader}': decided {cov['n_decided']} of {cov['n_answers']} answers; "
            f"{cov['n_undecided']} left undecided")
    if cov["n_undecided"]:
        note += (" (not in the figures above: they need the judge stage)" if grader == "rules"
                 else " (judge_failed or not yet judged: not in the figures above)")
        parts.append(Text(note, style="yellow"))
    else:
        parts.append(Text(note, style="dim"))
    return parts


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) pairs of the tables, for the Prefect artifact."""
    acc = report["accuracy"]
    cov = report["coverage"]
    out = [("answers decided", str(cov["n_decided"])),
           ("answers undecided", str(cov["n_undecided"]))]
    out += _cells(report)
    out += [(cat, pct(row["accuracy"])) for cat, row in acc["categories"].items()]
    out += [(f"SSR@{a:g}", pct(report["ssr"][a]["ssr"]) if a in report["ssr"] else "-")
            for a in ALPHAS]
    return out
