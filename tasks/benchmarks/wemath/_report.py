"""WE-MATH's paper-style report: Table 1 (S1/S2/S3 and the 12 categories) and Table 2 (the
four-dimensional metric under the strict and loose rules), read from the views."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from tasks.reports.format import pct, row_or_column
from tasks.store import Store

# The paper's column abbreviations for the 12 second-level categories (Table 1), in its order.
WEMATH_CATEGORIES = {
    "Understanding and Conversion of Units": "UCU",
    "Angles and Length": "AL",
    "Understanding of Plane Figures": "UPF",
    "Calculation of Plane Figures": "CPF",
    "Understanding of Solid Figures": "USF",
    "Calculation of Solid Figures": "CSF",
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
    problems = store.query("SELECT count(*) FILTER (complete), count(*) FILTER (NOT complete) "
                           "FROM wemath_problem_verdicts WHERE run_id = ? AND grader = ?", args)[0]
    order = {name: i for i, name in enumerate(WEMATH_CATEGORIES)}
    cats.sort(key=lambda c: order.get(c["category"], len(order)))
    return {
        "grader": grader,
        "accuracy": {
            **(steps[0] if steps else {"s1": None, "s2": None, "s3": None}),
            "categories": {c["category"]: c["accuracy"] for c in cats},
        },
        "four_dimensional": {f["rule"]: f for f in four},
        "problems": {"complete": problems[0], "incomplete": problems[1]},
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
    notes = []
    inc = report["problems"]["incomplete"]
    if inc:
        notes.append(Text(f"{inc} problem(s) left out of N: a question has no answer yet "
                          "(failed call or partial run)", style="yellow"))
    return [t1, legend, t2, *notes]


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) pairs of both tables, for the Prefect artifact."""
    acc = report["accuracy"]
    out = [(k.upper(), pct(acc.get(k))) for k in ("s1", "s2", "s3")]
    out += [(c, pct(v)) for c, v in acc.get("categories", {}).items()]
    for rule, f in report["four_dimensional"].items():
        out.append((f"score ({rule})", pct(f["score"])))
        out += [(f"{k.upper()} ({rule})", f"{pct(f[k + '_rate'])} ({f[k]})")
                for k in ("ik", "ig", "cm", "rm")]
    return out
