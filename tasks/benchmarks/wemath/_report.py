"""WE-MATH's paper-style report: Table 1 (S1/S2/S3 and the 12 categories) and Table 2 (the
four-dimensional metric under the strict and loose rules), read from the views, and how many
problems a failed or missing answer left out of every figure."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mathprobe.tasks.reports.format import pct, row_or_column
from mathprobe.tasks.store import Store

# The paper's column abbreviations for the 12 second-level categories (Table 1), in its order
# (the order of the authors' evaluation/accuracy.py too: CPF before UPF, CSF before USF).
WEMATH_CATEGORIES = {
    "Understanding and Conversion of Units": "UCU",
    "Angles and Length": "AL",
    "Calculation of Plane Figures": "CPF",
    "Understanding of Plane Figures": "UPF",
    "Calculation of Solid Figures": "CSF",
    "Understanding of Solid Figures": "USF",
    "Basic Transformations of Figures": "BTF",
    "Cutting and Combining of Figures": "CCF",
    "Direction": "Dir",
    "Position": "Pos",
    "Route Map": "RoM",
    "Correspondence of Coordinates and Positions": "CCP",
}


def build(store: Store, run_id: str, grader: str) -> dict[str, Any]:
    args = [run_id, grader]
    steps = store.query_dicts("SELECT s1, s2, s3 FROM wemath_step_accuracy "
                              "WHERE run_id = ? AND grader = ?", args)
    cats = store.query_dicts("SELECT category, accuracy, n_concepts, n FROM "
                             "wemath_category_accuracy WHERE run_id = ? AND grader = ?", args)
    four = store.query_dicts("SELECT * EXCLUDE (run_id, grader) FROM wemath_four_dimensional "
                             "WHERE run_id = ? AND grader = ? ORDER BY rule DESC", args)
    (complete,), = store.query("SELECT count(*) FROM wemath_problem_verdicts WHERE run_id = ? "
                               "AND grader = ? AND complete", args)
    n525 = store.query_dicts("SELECT rule, n, score, ik_rate, ig_rate, cm_rate, rm_rate FROM "
                             "wemath_four_dimensional_n525 WHERE run_id = ? AND grader = ? "
                             "ORDER BY rule DESC", args)
    (left_out, with_failed, failed_questions), = store.query(
        "SELECT count(*), count(*) FILTER (n_failed > 0), coalesce(sum(n_failed), 0) "
        "FROM wemath_problem_coverage WHERE run_id = ? AND NOT complete", [run_id])
    order = {name: i for i, name in enumerate(WEMATH_CATEGORIES)}
    cats.sort(key=lambda c: order.get(c["category"], len(order)))
    return {
        "grader": grader,
        "accuracy": {
            **(steps[0] if steps else {"s1": None, "s2": None, "s3": None}),
            "categories": {c["category"]: c["accuracy"] for c in cats},
        },
        "four_dimensional": {f["rule"]: f for f in four},
        # what the authors' script, VLMEvalKit and lmms-eval print for the same answers: they
        # divide by N = 525 whatever the run holds (view wemath_four_dimensional_n525)
        "n525": {f["rule"]: {k: v for k, v in f.items() if k != "rule"} for f in n525},
        # left out of every figure (N, S1-S3, categories, concepts): problems the run asked
        # something of but has not answered whole; `with_failed` of them had a failed call
        "problems": {"complete": complete, "incomplete": left_out, "with_failed": with_failed,
                     "failed_questions": int(failed_questions)},
    }


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    acc = report["accuracy"]
    cells = [(name, pct(acc[key])) for name, key in (("S1", "s1"), ("S2", "s2"), ("S3", "s3"))]
    cells += [(WEMATH_CATEGORIES.get(cat, cat), pct(v)) for cat, v in acc["categories"].items()]
    t1 = row_or_column("WE-MATH accuracy (%) — paper Table 1", cells, width, "accuracy", col_width=8)
    t2 = Table(title="WE-MATH four-dimensional metric — paper Table 2 (rate% (count))",
               title_justify="left")
    for col in ("rule", "N", "Score", "IK", "IG", "CM", "RM"):
        t2.add_column(col, justify="right")
    for rule in ("strict", "loose"):
        f = report["four_dimensional"].get(rule)
        if f is None:
            continue
        t2.add_row(rule, str(f["n"]), pct(f["score"]),
                   *(f"{pct(f[k + '_rate'])} ({f[k]})" for k in ("ik", "ig", "cm", "rm")))
    legend = Text("  ".join(f"{abbr}={name}" for name, abbr in WEMATH_CATEGORIES.items()),
                  style="dim")
    notes = [*_n525_note(report)]
    probs = report["problems"]
    if probs["incomplete"]:
        notes.append(Text(
            f"{probs['incomplete']} problem(s) left out of every figure (N, S1-S3, categories, "
            f"concepts) because a question has no answer: {probs['with_failed']} with a failed "
            f"call ({probs['failed_questions']} question(s), infra_failed; --retry-failed "
            f"re-asks them), {probs['incomplete'] - probs['with_failed']} not fully asked yet",
            style="yellow"))
    return [t1, legend, t2, *notes]


def _n525_note(report: dict[str, Any]) -> list[Text]:
    """Where the run holds other than 525 problems: what the tools that divide by 525 print."""
    n525 = report.get("n525") or {}
    strict, loose = n525.get("strict"), n525.get("loose")
    if not strict or strict["n"] == 525:
        return []
    ours = report["four_dimensional"]
    return [Text(
        f"N = {strict['n']} problems (from the data). The authors' script, VLMEvalKit and "
        f"lmms-eval divide by N = 525 whatever the file holds: for these answers they print "
        f"Score {pct(strict['score'])} strict / {pct(loose['score'])} loose (here "
        f"{pct(ours['strict']['score'])} / {pct(ours['loose']['score'])}), IK "
        f"{pct(strict['ik_rate'])}, IG {pct(strict['ig_rate'])}, CM {pct(strict['cm_rate'])} "
        f"strict (view wemath_four_dimensional_n525)", style="yellow")]


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) pairs of both tables, for the Prefect artifact."""
    acc = report["accuracy"]
    out = [(k.upper(), pct(acc.get(k))) for k in ("s1", "s2", "s3")]
    out.append(("problems left out (a question unanswered)",
                str(report.get("problems", {}).get("incomplete", 0))))
    out += [(c, pct(v)) for c, v in acc.get("categories", {}).items()]
    for rule, f in report["four_dimensional"].items():
        out.append((f"score ({rule})", pct(f["score"])))
        out += [(f"{k.upper()} ({rule})", f"{pct(f[k + '_rate'])} ({f[k]})")
                for k in ("ik", "ig", "cm", "rm")]
    return out
