"""CMMaTH's report: two sets of figures, named apart and read from the views.

* The paper's definitions (cmmath_paper_*): Table 4's layout (overall, answer types, grade
  groups, visual subjects) and SSR@alpha over leaf knowledge points, accuracy = right / all.
* The authors' code (cmmath_official_*, their tool/statics_acc.py): scores per visual subject,
  grade_id and question type as right / (count + 1) x 100 rounded to 1 decimal, overall right
  / all, and SSR over one point per question with rate right / (count + 1), alpha 0..0.8.

Accuracy is over all answers: what the grader left undecided counts as not right and is shown
as undecided (with the coverage, and the figure it would be were all of it right); the report
says to add --judge when there is any.
"""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mathprobe.tasks.reports.format import pct, row_or_column
from mathprobe.tasks.store import Store

GRADE_GROUPS = {1: "Elementary", 2: "Junior", 3: "Senior"}
ANSWER_TYPES = {"choice": "Choice", "free_form": "Free-form"}
ALPHAS = (0.1, 0.2, 0.3, 0.6)
BREAKDOWNS = {"subject": "visual subject", "grade_id": "grade", "question_type": "question type"}
DIFFERENCES = (
    "The two sets differ by definition, not by data: the authors' code divides each group's "
    "right answers by its count + 1 (3 right of 3 scores 75.0), groups by grade_id 1..12 and "
    "splits choice questions into single / multi by the reference answer, pools visual subjects "
    "outside its list as UnKnown without counting their right answers, and its SSR counts one "
    "knowledge point per question (the parent of the innermost) with rate right / (count + 1); "
    "the paper's definitions are plain accuracies and SSR over every leaf point of a question.")


def build(store: Store, run_id: str, grader: str) -> dict[str, Any]:
    args = [run_id, grader]
    acc = {r["answer_type"]: r for r in store.query_dicts(
        "SELECT answer_type, n, n_undecided, correct, accuracy, accuracy_max "
        "FROM cmmath_paper_accuracy WHERE run_id = ? AND grader = ?", args)}
    grades = store.query_dicts(
        "SELECT grade_group, n, n_undecided, correct, accuracy FROM cmmath_paper_grade_accuracy "
        "WHERE run_id = ? AND grader = ? ORDER BY grade_group", args)
    cats = store.query_dicts(
        "SELECT category, n, n_undecided, correct, accuracy FROM cmmath_paper_category_accuracy "
        "WHERE run_id = ? AND grader = ? ORDER BY n DESC, category", args)
    ssr = store.query_dicts(
        "SELECT alpha, n_points, ssr FROM cmmath_paper_ssr WHERE run_id = ? AND grader = ? "
        "ORDER BY alpha", args)
    scores = store.query_dicts(
        "SELECT breakdown, key, n, correct, score FROM cmmath_official_scores "
        "WHERE run_id = ? AND grader = ? ORDER BY breakdown, position", args)
    official_ssr = store.query_dicts(
        "SELECT alpha, n_points, ssr FROM cmmath_official_ssr WHERE run_id = ? AND grader = ? "
        "ORDER BY alpha", args)
    cov = store.query_dicts(
        "SELECT n_answers, n_decided, n_undecided, coverage FROM cmmath_coverage "
        "WHERE run_id = ? AND grader = ?", args)
    if not cov:      # a grader with no verdicts in this run, or no answers at all
        n = store.query("SELECT count(*) FROM current_responses WHERE run_id = ? AND status IN "
                        "('ok', 'refused', 'missing')", [run_id])[0][0]
        cov = [{"n_answers": n, "n_decided": 0, "n_undecided": n, "coverage": 0.0 if n else None}]
    by_breakdown: dict[str, list[dict[str, Any]]] = {}
    for row in scores:
        by_breakdown.setdefault(row.pop("breakdown"), []).append(row)
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
        "official": {
            "scores": by_breakdown,
            "ssr": {float(s["alpha"]): s for s in official_ssr},
        },
    }


def _acc(row: dict[str, Any] | None) -> float | None:
    return None if row is None else row["accuracy"]


def _cells(report: dict[str, Any]) -> list[tuple[str, str]]:
    acc = report["accuracy"]
    cells = [("Overall", pct(_acc(acc["overall"])))]
    cells += [(label, pct(_acc(acc["answer_types"].get(t)))) for t, label in ANSWER_TYPES.items()]
    cells += [(label, pct(_acc(acc["grade_groups"].get(g)))) for g, label in GRADE_GROUPS.items()]
    return cells


def _official_overall(report: dict[str, Any]) -> dict[str, Any] | None:
    return next(iter(report["official"]["scores"].get("overall", [])), None)


def coverage_note(report: dict[str, Any]) -> Text:
    """How many answers the grader decided; with any undecided, how they count and what to do."""
    cov, grader = report["coverage"], report["grader"]
    text = (f"grader '{grader}': decided {cov['n_decided']} of {cov['n_answers']} answers"
            + (f" (coverage {pct(cov['coverage'])}%)" if cov["coverage"] is not None else ""))
    if not cov["n_undecided"]:
        return Text(text + "; none undecided", style="dim")
    overall = report["accuracy"]["overall"]
    text += f"; {cov['n_undecided']} undecided, counted as not right in every figure below"
    if overall:
        text += (f" (were they all right, the overall accuracy would be "
                 f"{pct(overall['accuracy_max'])}% instead of {pct(overall['accuracy'])}%)")
    if grader == "rules":
        text += (". Add --judge BACKEND:NAME to have a judge decide them (the authors' figures "
                 "assume every answer judged).")
    elif grader.startswith("judge:"):
        text += (f". This grader judged only what the rules left undecided: "
                 f"'cascade:{grader[len('judge:'):]}' covers every answer.")
    else:
        text += ". They are judge_failed or not yet judged: re-run with --judge and --retry-failed."
    return Text(text, style="yellow")


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    acc = report["accuracy"]
    grader = report["grader"]
    parts: list[Any] = [coverage_note(report)]
    parts.append(row_or_column(
        f"CMMaTH accuracy (%) over all answers — the paper's definitions, Table 4 layout "
        f"(grader: {grader})", _cells(report), width, "accuracy", col_width=11))
    t2 = Table(title="CMMaTH accuracy (%) by visual subject — the paper's definition",
               title_justify="left")
    for col in ("visual subject", "n", "undecided", "accuracy"):
        t2.add_column(col, justify="left" if col == "visual subject" else "right")
    for cat, row in acc["categories"].items():
        t2.add_row(cat, str(row["n"]), str(row["n_undecided"]), pct(row["accuracy"]))
    parts.append(t2)
    t3 = Table(title="Knowledge-point mastery SSR@alpha (%) — the paper's definition: share of "
               "leaf knowledge points with accuracy > alpha", title_justify="left")
    for a in ALPHAS:
        t3.add_column(f"SSR@{a:g}", justify="right")
    t3.add_column("points", justify="right")
    n_points = next((s["n_points"] for s in report["ssr"].values()), 0)
    t3.add_row(*(pct(report["ssr"][a]["ssr"]) if a in report["ssr"] else "-" for a in ALPHAS),
               str(n_points))
    parts.append(t3)
    parts += _render_official(report, width)
    parts.append(Text(DIFFERENCES, style="dim"))
    return parts


def _render_official(report: dict[str, Any], width: int) -> list[Any]:
    scores = report["official"]["scores"]
    overall = _official_overall(report)
    head = Text.assemble(("The authors' figures", "bold"), " (their tool/statics_acc.py: per "
                         "group score = right / (count + 1) x 100, overall = right / all x 100, "
                         f"rounded as they round; grader: {report['grader']}): overall "
                         f"{'-' if overall is None else overall['score']}")
    tables = []
    for breakdown, label in BREAKDOWNS.items():
        table = Table(title=f"by {label}", title_justify="left")
        for col in (label, "n", "right", "score"):
            table.add_column(col, justify="left" if col == label else "right", no_wrap=True)
        for r in scores.get(breakdown, []):
            table.add_row(r["key"], str(r["n"]), str(r["correct"]),
                          "-" if r["score"] is None else f"{r['score']:.1f}")
        tables.append(table)
    out: list[Any] = [head]
    if width >= 110:             # the three breakdowns side by side
        grid = Table.grid(padding=(0, 3))
        grid.add_row(*tables)
        out.append(grid)
    else:
        out += tables
    ssr = report["official"]["ssr"]
    if ssr:
        t = Table(title="The authors' SSR (%): one point per question, rate = right / (count + 1)",
                  title_justify="left")
        for a in ssr:
            t.add_column(f"@{a:g}", justify="right")
        t.add_column("points", justify="right")
        t.add_row(*(pct(s["ssr"]) for s in ssr.values()),
                  str(next(iter(ssr.values()))["n_points"]))
        out.append(t)
    return out


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) pairs of the tables, for the Prefect artifact."""
    acc = report["accuracy"]
    cov = report["coverage"]
    out = [("answers", str(cov["n_answers"])), ("answers decided", str(cov["n_decided"])),
           ("answers undecided (counted as not right)", str(cov["n_undecided"]))]
    out += [(f"paper {name}", value) for name, value in _cells(report)]
    out += [(f"paper {cat}", pct(row["accuracy"])) for cat, row in acc["categories"].items()]
    out += [(f"paper SSR@{a:g}", pct(report["ssr"][a]["ssr"]) if a in report["ssr"] else "-")
            for a in ALPHAS]
    for breakdown, rows in report["official"]["scores"].items():
        out += [(f"authors {breakdown} {r['key']}", "-" if r["score"] is None else
                 f"{r['score']:.1f}") for r in rows]
    out += [(f"authors SSR@{a:g}", pct(s["ssr"])) for a, s in report["official"]["ssr"].items()]
    return out
