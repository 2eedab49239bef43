"""The error analysis (mathprobe.reports.error_analysis) as the terminal and the Markdown artifact
show it: per run and labeller the distribution of the types (share, 95% Wilson interval, count),
each figure the taxonomy declares (a matrix: its rows with any error and how many rows have
each type; a listing: its rows), the labellers' agreement (Cohen's kappa overall and per type,
the confusion table) and, in a comparison, the test of two runs' distributions. The HTML report
draws the same dict (mathprobe.reports.html)."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mathprobe.reports.format import fmt_interval, fmt_p, fmt_value

TERMINAL_ROWS = 15         # rows of a listing or matrix on the terminal (all of them: --json)
MARKDOWN_ROWS = 40         # rows of a listing in the Markdown artifact


def cell(value: Any, width: int = 80) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return fmt_value(value)
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def who(x: dict[str, Any]) -> str:
    return f"{x['labeler']} ({'people' if x['source'] == 'human' else 'a model'})"


def terminal(errors: dict[str, Any] | None) -> list[Any]:
    """Rich renderables of the error analysis of a run report or a comparison."""
    if not errors:
        return []
    out: list[Any] = []
    for x in errors["labelled"]:
        t = Table(title=f"{errors['title']}: run {x['run_id']}, labelled by {who(x)} "
                        f"(%, of {x['n_labelled']} labelled wrong answers)",
                  title_justify="left", caption=f"types and definitions: {errors['source']}",
                  caption_justify="left")
        for col in ("error type", "share", "95% interval", "n", "by rule"):
            t.add_column(col, justify="left" if col == "error type" else "right")
        for e in x["types"]:
            t.add_row(e["error_type"], fmt_value(e["share"]), fmt_interval(e["ci_low"],
                                                                          e["ci_high"]),
                      str(e["n"]), str(e["n_by_rule"]))
        out.append(t)
        for f in x["figures"]:
            out.append(_figure(f))
    for p in errors["agreement"]:
        out += agreement(p)
    for test in errors.get("tests", []):
        out.append(Text(test_line(test)))
    out += [Text(note, style="yellow") for note in errors["notes"]]
    return out


def _figure(f: dict[str, Any]) -> Any:
    if f["kind"] == "matrix":
        rows = [r for r in f["rows"] if any(r["counts"].values())]
        t = Table(title=f"{f['title']} ({len(rows)} of {f['n_rows']} with an error; first "
                        f"{min(len(rows), TERMINAL_ROWS)} shown, all in --json and the HTML "
                        "report)", title_justify="left",
                  caption="rows with each type: " + ", ".join(
                      f"{k} {v}" for k, v in f["with_any"].items()), caption_justify="left")
        t.add_column("")
        for name in f["types"]:
            t.add_column(name, justify="right")
        for r in sorted(rows, key=lambda r: -sum(r["counts"].values()))[:TERMINAL_ROWS]:
            t.add_row(cell(r["label"], 50), *(str(r["counts"][n]) for n in f["types"]))
        return t
    t = Table(title=f"{f['title']}" + (f" (first {TERMINAL_ROWS} of {len(f['rows'])})"
                                        if len(f["rows"]) > TERMINAL_ROWS else ""),
              title_justify="left", caption=f["note"] or None, caption_justify="left")
    for _, heading in f["columns"]:
        t.add_column(heading, overflow="fold")
    for row in f["rows"][:TERMINAL_ROWS]:
        t.add_row(*(cell(v, 60) for v in row))
    return t


def agreement(p: dict[str, Any]) -> list[Any]:
    """One pair of labellers: kappa, per type, the confusion table."""
    def name(label: str, human: bool) -> str:
        return f"{label} ({'people' if human else 'a model'})"

    a, b = name(p["labeler_a"], p["human_a"]), name(p["labeler_b"], p["human_b"])
    kappa = "n/a (one type for every answer)" if p["kappa"] is None else f"{p['kappa']:.3f}"
    head = Text.assemble((f"run {p['run_id']}: {a} vs {b}", "bold"),
                         f"\nboth labelled {p['n_both']} answers: the same type on "
                         f"{p['agreement']:.1%}, Cohen's kappa {kappa} (chance agreement "
                         f"{p['expected']:.1%})")
    per = Table(title="agreement per type (that type or another)", title_justify="left")
    for col in ("error type", "both", "only A", "only B", "neither", "agree", "kappa"):
        per.add_column(col, justify="left" if col == "error type" else "right")
    for t in p["by_type"]:
        per.add_row(t["error_type"], str(t["both_type"]), str(t["only_a"]), str(t["only_b"]),
                    str(t["neither"]), f"{t['agreement']:.1%}",
                    "-" if t["kappa"] is None else f"{t['kappa']:.3f}")
    types, cells = confusion(p)
    conf = Table(title=f"confusion table (rows: A = {p['labeler_a']}, columns: B = "
                       f"{p['labeler_b']})", title_justify="left")
    conf.add_column("")
    for t in types:
        conf.add_column(t, justify="right")
    for ta in types:
        conf.add_row(ta, *(str(cells.get((ta, tb), 0)) for tb in types))
    return [head, per, conf]


def confusion(p: dict[str, Any]) -> tuple[list[str], dict[tuple[str, str], int]]:
    types = sorted({x for row in p["confusion"] for x in row[:2]})
    return types, {(ta, tb): n for ta, tb, n in p["confusion"]}


def test_line(test: dict[str, Any]) -> str:
    """A comparison's test of two runs' distributions, in one line."""
    head = (f"error types, {test['run_b']} vs {test['run_a']} (labeller {test['labeler']}, "
            f"n {test['n_b']} vs {test['n_a']})")
    if test["test"] is None:
        return f"{head}: {test['reason']}"
    per = "; ".join(f"{t['error_type']} {100 * t['diff']:+.1f} pp (adj. p {fmt_p(t['p_adjusted'])})"
                    + ("*" if t["significant"] else "") for t in test["by_type"])
    return (f"{head}: Fisher's exact test p = {fmt_p(test['p_value'])}"
            f"{' *' if test.get('significant') else ''}; per type: {per}")


def side_by_side(errors: dict[str, Any] | None, labels: dict[str, str]) -> list[Any]:
    """`compare`: per labeller, the runs' distributions side by side (a column per run: share
    [95% interval] count), then each run's test against the first."""
    if not errors:
        return []
    out: list[Any] = []
    for labeler in dict.fromkeys(x["labeler"] for x in errors["labelled"]):
        runs = [x for x in errors["labelled"] if x["labeler"] == labeler]
        t = Table(title=f"{errors['title']}, labelled by {who(runs[0])}: share of the labelled "
                        "wrong answers (%), [95% Wilson interval], count",
                  title_justify="left", caption=f"types and definitions: {errors['source']}",
                  caption_justify="left")
        t.add_column("error type")
        for x in runs:
            t.add_column(f"{labels.get(x['run_id'], x['run_id'])} (n={x['n_labelled']})",
                         justify="right")
        for k, e in enumerate(runs[0]["types"]):
            shares = [x["types"][k] for x in runs]
            t.add_row(e["error_type"], *(
                f"{fmt_value(s['share'])} {fmt_interval(s['ci_low'], s['ci_high'], digits=1)} "
                f"{s['n']}" for s in shares))
        out.append(t)
        out += [Text(test_line(test)) for test in errors.get("tests", [])
                if test["labeler"] == labeler]
    out.append(Text(f"error types: Fisher's exact test of the two runs' type counts (Monte Carlo "
                    f"p-value for more than two types), per type a 2 x 2 Fisher test with "
                    f"Benjamini-Hochberg adjusted p (*: < 0.05); tested only where both runs "
                    f"have at least {errors['min_n']} labelled errors", style="dim"))
    out += [Text(note, style="yellow") for note in errors["notes"]]
    return out


def long_rows(errors: dict[str, Any] | None, runs: dict[str, dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """`compare --csv`: one row per run, labeller and error type (kind 'error_type': its
    share with the Wilson interval, n = labelled wrong answers, count = answers of the type)."""
    if not errors:
        return []
    out = []
    for x in errors["labelled"]:
        r = runs.get(x["run_id"], {})
        out += [{"kind": "error_type", "benchmark": errors["benchmark"],
                 "table": f"errors:{x['labeler']}", "figure": e["error_type"],
                 "label": e["error_type"], "run_id": x["run_id"], "model": r.get("model"),
                 "setting": r.get("setting"), "grader": x["grader"], "value": e["share"],
                 "ci_low": e["ci_low"], "ci_high": e["ci_high"], "n": x["n_labelled"],
                 "count": e["n"], "ci_method": e["ci_method"]} for e in x["types"]]
    return out


def _md(text: Any) -> str:
    return cell(text, 200).replace("|", "\\|")


def markdown(errors: dict[str, Any] | None) -> list[str]:
    """The Markdown lines of the error analysis (the run's Prefect artifact)."""
    if not errors:
        return []
    lines = ["", "## Why it failed: error types", "",
             f"Types and definitions: {errors['source']}. {errors['protocol']}"]
    for x in errors["labelled"]:
        lines += ["", f"### {errors['title']}: run `{x['run_id']}`, labelled by {who(x)}", "",
                  f"Of {x['n_labelled']} labelled wrong answers ({x['n_wrong']} wrong under "
                  f"{x['grader']}); 95% Wilson intervals.", "",
                  "| error type | share | 95% interval | n |", "|---|---:|---:|---:|"]
        lines += [f"| {e['error_type']} | {fmt_value(e['share'])}% | "
                  f"{fmt_interval(e['ci_low'], e['ci_high'])} | {e['n']} |" for e in x["types"]]
        for f in x["figures"]:
            lines += ["", f"#### {f['title']}", ""]
            if f["kind"] == "matrix":
                rows = [r for r in f["rows"] if any(r["counts"].values())]
                lines += [f"{len(rows)} of {f['n_rows']} with an error; with each type: "
                          + ", ".join(f"{k} {v}" for k, v in f["with_any"].items()), "",
                          "| | " + " | ".join(f["types"]) + " |",
                          "|---|" + "---:|" * len(f["types"])]
                lines += [f"| {_md(r['label'])} | " + " | ".join(str(r["counts"][n])
                                                                 for n in f["types"]) + " |"
                          for r in rows]
            else:
                if len(f["rows"]) > MARKDOWN_ROWS:
                    lines += [f"The first {MARKDOWN_ROWS} of {len(f['rows'])} rows (all of them: "
                              "`mathprobe report --json`, the HTML report).", ""]
                lines += ["| " + " | ".join(h for _, h in f["columns"]) + " |",
                          "|" + "---|" * len(f["columns"])]
                lines += ["| " + " | ".join(_md(v) for v in row) + " |"
                          for row in f["rows"][:MARKDOWN_ROWS]]
            if f["note"]:
                lines += ["", f"_{_md(f['note'])}_"]
    for p in errors["agreement"]:
        kappa = "n/a" if p["kappa"] is None else f"{p['kappa']:.3f}"
        lines += ["", f"### Agreement: {p['labeler_a']} vs {p['labeler_b']} (run `{p['run_id']}`)",
                  "", f"Both labelled {p['n_both']} answers: the same type on "
                  f"{100 * p['agreement']:.1f}%, Cohen's kappa {kappa}.", "",
                  "| error type | both | only A | only B | kappa |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {t['error_type']} | {t['both_type']} | {t['only_a']} | {t['only_b']} | "
                  + ("-" if t["kappa"] is None else f"{t['kappa']:.3f}") + " |"
                  for t in p["by_type"]]
    for test in errors.get("tests", []):
        lines += ["", test_line(test)]
    if errors["notes"]:
        lines += ["", *(f"- {_md(n)}" for n in errors["notes"])]
    return lines
