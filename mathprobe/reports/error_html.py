"""The error analysis (mathprobe.reports.error_analysis) in the HTML report: per benchmark, the
taxonomy with its definitions and source, each run and labeller's distribution (a table with
95% Wilson intervals, and one bar plot per labeller with the compared runs side by side), the
paper's declared figures (a matrix as a heat map, rows by group, and as a sortable table; a
listing as a table), the labellers' agreement (kappa per type, the confusion table) and the
tests between runs. The plots are drawn by mathprobe.reports.plots from `Plot` declarations,
as every other plot of the report."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathprobe.contract import Plot
from mathprobe.reports import error_render, plots
from mathprobe.reports.format import fmt_interval, fmt_p, fmt_value


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def section(errors: dict[str, Any] | None, figures_dir: Path | None = None
            ) -> tuple[dict[str, Any] | None, list[str]]:
    """(the template's error section of a benchmark, the figure files written)."""
    if not errors:
        return None, []
    drawn, files = [], []
    for plot, runs, figures in _plots(errors):
        for part in plots.draw(plot, runs, figures):
            drawn.append({"key": plot.key, "part": part.key, "title": part.title,
                          "note": plot.note, "svg": plots.svg(part.fig, f"{part.key}-")})
            if figures_dir is not None:
                files += plots.save(part.fig, str(figures_dir / part.key))
    labelled = [{
        "run_id": x["run_id"], "who": error_render.who(x), "labeler": x["labeler"],
        "grader": x["grader"], "n_labelled": x["n_labelled"], "n_wrong": x["n_wrong"],
        "cost": f"${x['cost_usd']:.4f}, {x['input_tokens']} tokens in, {x['output_tokens']} out",
        "rows": [(e["error_type"], fmt_value(e["share"]), fmt_interval(e["ci_low"], e["ci_high"]),
                  e["n"], e["n_by_rule"]) for e in x["types"]],
        "figures": [_figure(f) for f in x["figures"]]} for x in errors["labelled"]]
    agreement = []
    for p in errors["agreement"]:
        types, cells = error_render.confusion(p)
        agreement.append({**p, "types": types,
                          "matrix": [(ta, [cells.get((ta, tb), 0) for tb in types])
                                     for ta in types]})
    tests = [{**t, "line": error_render.test_line(t),
              "rows": [(b["error_type"], f"{100 * b['diff']:+.2f}", fmt_p(b["p_value"]),
                        fmt_p(b["p_adjusted"]), b["significant"]) for b in t["by_type"]]}
             for t in errors["tests"]]
    return {**errors, "labelled_html": labelled, "plots": drawn, "agreement_html": agreement,
            "tests_html": tests}, files


def _figure(f: dict[str, Any]) -> dict[str, Any]:
    if f["kind"] == "matrix":
        header = ["group", "", *f["types"], "all"]
        rows = [[r["group"], r["label"], *(r["counts"][t] for t in f["types"]),
                 sum(r["counts"].values())] for r in f["rows"]]
        summary = ", ".join(f"{k} in {v} of {f['n_rows']}" for k, v in f["with_any"].items())
        return {**f, "header": header, "table": rows, "summary": summary}
    return {**f, "header": [h for _, h in f["columns"]], "summary": "",
            "table": [[error_render.cell(v, 400) for v in row] for row in f["rows"]]}


def _plots(errors: dict[str, Any]) -> list[tuple[Plot, list[str], dict[str, Any]]]:
    """(plot, its 'runs', its figures): per labeller the distribution of the compared runs; per
    run and labeller each matrix figure as a heat map of counts (a column per error type)."""
    out = []
    names = [t["name"] for t in errors["types"]]
    for labeler in dict.fromkeys(x["labeler"] for x in errors["labelled"]):
        runs = [x for x in errors["labelled"] if x["labeler"] == labeler]
        figures = {x["run_id"]: {e["error_type"]: {
            "value": e["share"], "ci_low": e["ci_low"], "ci_high": e["ci_high"],
            "n": x["n_labelled"], "ci_method": e["ci_method"]} for e in x["types"]} for x in runs}
        out.append((Plot(f"errors-{errors['benchmark']}-{_slug(labeler)}",
                         f"{errors['title']}, labelled by {labeler}", "bars",
                         tuple((n, n) for n in names), ylabel="share of labelled wrong answers",
                         note=f"types and definitions: {errors['source']}"),
                    [x["run_id"] for x in runs], figures))
        for x in runs:
            for f in x["figures"]:
                if f["kind"] != "matrix":
                    continue
                groups: list[tuple[str, int]] = []
                for r in f["rows"]:
                    if groups and groups[-1][0] == r["group"]:
                        groups[-1] = (r["group"], groups[-1][1] + 1)
                    else:
                        groups.append((r["group"], 1))
                counts = {t: {r["label"]: {"value": float(r["counts"][t])} for r in f["rows"]}
                          for t in f["types"]}
                out.append((Plot(f"errors-{f['key']}-{_slug(x['run_id'])}-{_slug(labeler)}",
                                 f"{f['title']}: run {x['run_id']}, labelled by {labeler}",
                                 "heatmap", tuple((r["label"], r["label"]) for r in f["rows"]),
                                 groups=tuple(groups) if any(g for g, _ in groups) else (),
                                 xlabel="wrong answers", scale=1.0, unit="", note=f["note"]),
                            list(f["types"]), counts))
    return out
