"""A run's report as Markdown (the Prefect UI's report artifact): the run apart from the metrics,
the headline figure, every figure of the benchmark's tables as a percentage with its 95%
interval and n, the weakest concepts, the benchmark's notes on the run, why it failed (its error
types, where its wrong answers are labelled: mathprobe errors), and where the HTML report is. Read from the same comparison machinery as `mathprobe compare`, for one run."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mathprobe.reports import compare, error_render, stats
from mathprobe.reports.format import fmt_diff, fmt_interval, fmt_p, fmt_test, fmt_value, is_percent
from mathprobe.store import Store

N_WEAKEST = 10


def _md(text: Any) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def headline(b: compare.BenchComparison, run_id: str) -> tuple[str, str] | None:
    """(label, 'value% [lo, hi], n=N') of the run's headline figure, if it has one."""
    stat = b.headline
    e = b.figures.get(run_id, {}).get(stat.key) if stat is not None else None
    if stat is None or e is None:
        return None
    unit = "%" if is_percent(stat.fmt) else ""
    return b.headline_label or stat.label, (f"{fmt_value(e.value, stat.fmt)}{unit} "
                                            f"{fmt_interval(e.ci_low, e.ci_high, stat.fmt)}, n={e.n}")


def run_markdown(store: Store, report: dict[str, Any], *, html: str | None = None,
                 html_hint: str | None = None) -> tuple[str, str | None]:
    """(the Markdown, the headline as one line) of a run's report (`mathprobe.reports.build`)."""
    run = report["run"]
    run_id = run["run_id"]
    result = compare.compare(store, [run_id], grader=report.get("grader"))
    b = result.benchmarks[0]
    (params,), = store.query("SELECT params FROM runs WHERE run_id = ?", [run_id])
    cost = float(run["cost_usd"] or 0) + sum(float(j["cost_usd"] or 0)
                                             for j in report.get("judges", []))
    lines = [f"# {b.title} run `{run_id}`", "", "## Run", "", "| | |", "|---|---|"]
    details = [
        ("model", f"`{run['model']}`"), ("setting", run["setting"]),
        ("params", f"`{json.dumps(json.loads(params or '{}'), sort_keys=True)}`"),
        ("grader", report.get("grader")), ("status", run["status"]),
        ("items", run["n_items"]),
        ("responses", f"{run['n_ok']} ok, {run['n_refused']} refused, {run['n_missing']} "
                      f"missing, {run['n_infra_failed']} failed (infra_failed), "
                      + (f"{run['n_truncated']} cut at the token cap (truncated), "
                         if run.get("n_truncated") else "")
                      + f"{run['n_not_asked']} not asked"),
        *((("samples", f"{run['samples']} per item: {sampled['n_ok']} ok, "
                       f"{sampled['n_infra_failed']} failed, {sampled['n_truncated']} cut, "
                       f"{sampled['n_not_asked']} not asked of {sampled['n_pairs']} answers "
                       "(responses: sample 0's)"),) if (sampled := run.get("sampled")) else ()),
        ("tokens", f"{run['input_tokens']} in, {run['output_tokens']} out"
                   + (f" ({run['reasoning_tokens']} of them reasoning)"
                      if run.get("reasoning_tokens") is not None else "")),
        ("cost", f"${cost:.4f}" + (" (judge included)" if report.get("judges") else "")
         + ("" if run.get("priced", True) else " (no price for this model)")),
    ]
    lines += [f"| {k} | {_md(v)} |" for k, v in details]
    head = headline(b, run_id)
    figures = b.figures.get(run_id, {})
    if head and b.headline is not None:        # (a headline is shown only where there is one)
        method = stats.method_name(figures[b.headline.key].ci_method, full=True)
        lines += ["", "## Headline", "", f"**{head[0]}: {head[1]}** (95% interval: {method})"]
    shown = sorted({e.ci_method for t in b.tables if not t.detail for s in t.stats
                    if (e := figures.get(s.key)) is not None})
    lines += ["", "## Metrics", "",
              "Percentages with their 95% interval, named by the method that made it ("
              + "; ".join(f"{stats.method_name(m)}: {stats.method_name(m, full=True)}"
                          for m in shown) + "), and n (what the figure is over)."]
    for t in b.tables:
        rows = [(s, figures[s.key]) for s in t.stats if s.key in figures]
        if t.detail or not rows:
            continue
        lines += ["", f"### {t.title}", "", "| figure | value | 95% interval | interval | n |",
                  "|---|---:|---:|---|---:|"]
        for s, e in rows:
            unit = "%" if is_percent(s.fmt) else ""
            count = f" ({e.count:.0f})" if e.count is not None and is_percent(s.fmt) else ""
            lines.append(f"| {_md(s.label)} | {fmt_value(e.value, s.fmt)}{unit}{count} | "
                         f"{fmt_interval(e.ci_low, e.ci_high, s.fmt)} | "
                         f"{stats.method_name(e.ci_method)} | {e.n} |")
        if t.note:
            lines += ["", f"_{_md(t.note)}_"]
    weakest = sorted(((s, figures[s.key]) for t in b.tables if t.key in b.weakest
                      for s in t.stats if s.key in figures),
                     key=lambda se: (se[1].value, -se[1].n, se[0].label))[:N_WEAKEST]
    for k in report.get("rankings", []):          # declared rankings replace the generic one
        lines += ["", f"## {_md(k['title'])}", "", "| # | concept | accuracy | 95% interval | n |",
                  "|---:|---|---:|---:|---:|"]
        lines += [f"| {e['rank']}{'!' if e['warning'] else ''} | {_md(e['label'])} | "
                  f"{fmt_value(e['value'], k['fmt'])}% | "
                  f"{fmt_interval(e['ci_low'], e['ci_high'], k['fmt'])} | {e['n']} |"
                  for e in k["entries"]]
        lines += ["", f"_{_md(k['note'])}_"]
        lines += [f"- {e['rank']}! {_md(e['label'])}: {_md(e['warning'])}"
                  for e in k["entries"] if e["warning"]]
    if weakest and not report.get("rankings"):
        lines += ["", f"## Weakest concepts (the {len(weakest)} lowest)", "",
                  "| concept | accuracy | 95% interval | interval | n |",
                  "|---|---:|---:|---|---:|"]
        lines += [f"| {_md(s.label)} | {fmt_value(e.value, s.fmt)}% | "
                  f"{fmt_interval(e.ci_low, e.ci_high, s.fmt)} | "
                  f"{stats.method_name(e.ci_method)} | {e.n} |" for s, e in weakest]
    shown = [*report.get("failed_calls", []), *report.get("notes", [])]
    if shown:        # a failed call's reasons ('  12 x HTTP 503 ...') nested under its line
        lines += ["", "## Notes", "", *(f"{'  ' if note.startswith('  ') else ''}- "
                                        f"{_md(note.strip())}" for note in shown)]
    lines += error_render.markdown(report.get("errors"))
    lines += ["", "## HTML report", ""]
    if html:
        lines.append(f"Plots, every figure with its interval, a glossary and an item browser: "
                     f"[{html}]({Path(html).resolve().as_uri()}) (a file on the machine that "
                     "ran the flow).")
    else:
        lines.append(f"Not written by this run; make it with `{html_hint}`." if html_hint else
                     "Not written by this run.")
    return "\n".join(lines) + "\n", (f"{head[0]} {head[1]}" if head else None)


def comparison_markdown(result: compare.ComparisonResult, title: str, html_hint: str = "") -> str:
    """Runs side by side as Markdown (e.g. a sweep's Prefect artifact): per benchmark its
    tables, each cell `value [95% interval] n`, and the differences from its first run with
    their p-values, raw and adjusted, * where significant (stats.significant)."""
    lines = [f"# {title}", "",
             "Every figure with its 95% interval (Wilson for shares of independent items, else "
             f"{result.resamples} bootstrap resamples) and n; differences are each run minus the "
             f"benchmark's first; {stats.tests_note()}; p adj: Benjamini-Hochberg over the "
             f"figures of the table; {stats.star_rule()} (docs/intervals.md)."]
    for b in result.benchmarks:
        lines += ["", f"## {b.title}"]
        for t in b.tables:
            runs = b.runs_of[t.key]
            if t.detail or t.rows != "run" or not runs:
                continue
            lines += ["", f"### {t.title}", "",
                      "| run | " + " | ".join(_md(s.label) for s in t.stats) + " |",
                      "|---|" + "---:|" * len(t.stats)]
            for r in runs:
                f = b.figures.get(r["run_id"], {})
                cells = [(f"{fmt_value(e.value, s.fmt)} {fmt_interval(e.ci_low, e.ci_high, s.fmt)}"
                          f" n={e.n}") if (e := f.get(s.key)) else "-" for s in t.stats]
                lines.append(f"| `{r['run_id']}` ({_md(r['model'])}, {r['setting']}) | "
                             + " | ".join(cells) + " |")
        # the shown tables' differences (the concept tables' are in compare --json and CSV)
        fmts = {s.key: s for t in b.tables if not t.detail and t.rows == "run" for s in t.stats}
        diffs = [d for d in b.differences if d.stat in fmts]
        if diffs:
            lines += ["", f"### Differences from `{b.baseline}`", "",
                      "| run | figure | difference | 95% interval | p | p adj | test |",
                      "|---|---|---:|---:|---:|---:|---|"]
            lines += [f"| `{d.run_b}` | {_md(fmts[d.stat].label)} | "
                      f"{fmt_diff(d.diff, fmts[d.stat].fmt)}{'*' if d.significant else ''} | "
                      f"{fmt_interval(d.ci_low, d.ci_high, fmts[d.stat].fmt)} | "
                      f"{fmt_p(d.p_value)} | {fmt_p(d.p_adjusted)} | "
                      f"{fmt_test(d.test, d.only_a, d.only_b)} |" for d in diffs]
    if html_hint:
        lines += ["", f"Plots, every figure and an item browser: `{html_hint}`"]
    return "\n".join(lines) + "\n"
