"""Paper-style reports read from the SQL views (no metric is computed here)."""
from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from tasks import prices
from tasks.errors import MathprobeError
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


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}"


def build(store: Store, run_id: str, grader: str | None = None) -> dict[str, Any]:
    run = store.run(run_id)
    if run is None:
        known = [r[0] for r in store.query("SELECT run_id FROM runs ORDER BY started_at")]
        raise MathprobeError(f"no run {run_id!r} in {store.path}"
                             + (f"; runs there: {', '.join(known)}" if known else "; it holds no runs"))
    builders = {"wemath": _wemath}
    if run["benchmark"] not in builders:
        raise MathprobeError(f"no report for benchmark {run['benchmark']!r} yet")
    summary = {k: run[k] for k in ("run_id", "benchmark", "model", "backend", "setting", "status",
                                   "n_items", "n_responses", "n_not_asked", "n_ok", "n_missing",
                                   "n_infra_failed", "n_refused", "input_tokens",
                                   "output_tokens", "cost_usd")}
    summary["cost_usd"] = float(summary["cost_usd"] or 0.0)
    summary["priced"] = (run["backend"] not in ("openai", "anthropic")
                         or prices.price(run["backend"], run["model"].partition(":")[2]) is not None)
    return {"run": summary, **builders[run["benchmark"]](store, run_id, grader or "official")}


def _wemath(store: Store, run_id: str, grader: str) -> dict[str, Any]:
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
    if run["n_infra_failed"]:
        parts.append(Text(f"{run['n_infra_failed']} call(s) failed (infra_failed): not graded, "
                          "left out of the figures; re-drive them with --retry-failed",
                          style="yellow"))
    if run["benchmark"] == "wemath":
        parts += _render_wemath(report, width)
    return Group(*parts)


def _render_wemath(report: dict[str, Any], width: int = 120) -> list[Any]:
    acc = report["accuracy"]
    cells = [(name, pct(acc[key])) for name, key in (("S1", "s1"), ("S2", "s2"), ("S3", "s3"))]
    cells += [(WEMATH_CATEGORIES.get(cat, cat), pct(v)) for cat, v in acc["categories"].items()]
    title = "WE-MATH accuracy (%) — paper Table 1"
    if width >= 8 * len(cells):            # the paper's layout: one row
        t1 = Table(title=title, title_justify="left")
        for name, _ in cells:
            t1.add_column(name, justify="right", no_wrap=True)
        t1.add_row(*(value for _, value in cells))
    else:                                  # a narrow terminal: the same row, transposed
        t1 = Table(title=title, title_justify="left", min_width=len(title))
        t1.add_column("figure")
        t1.add_column("accuracy", justify="right")
        for name, value in cells:
            t1.add_row(name, value)
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


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    console.print(render(report, console.width))
