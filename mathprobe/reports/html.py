"""`mathprobe report --html FILE`: one self-contained HTML file for one run or a comparison.

Everything is inline (CSS, the plots as SVG, the CJK glyphs the page uses, the item browser's
data, thumbnails and script), so the file opens offline and can be mailed around: no CDN, no
network at view time. Sections: the runs' details apart from the metrics; per benchmark, the
paper's tables with 95% intervals and n, the plots a paper would show, the differences from the
baseline with their tests, extra tables (WE-MATH's KCA transition matrix), and the tables of
many figures (concepts, knowledge points) in long form, one row per figure, sortable; a
glossary; and an item browser (mathprobe.reports.item_browser: every answer, filterable, and two
runs diffed item by item and concept by concept).
"""
from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2

from mathprobe.contract import Stat, Table
from mathprobe.figures import Ranking
from mathprobe.reports import card as run_card
from mathprobe.reports import compare as comparing
from mathprobe.reports import (
    error_html,
    fonts,
    glossary,
    html_layout,
    item_browser,
    notes,
    plots,
    stats,
)
from mathprobe.reports import format as formats
from mathprobe.reports.compare import BenchComparison, ComparisonResult
from mathprobe.reports.format import fmt_diff, fmt_interval, fmt_p, fmt_value, is_percent
from mathprobe.runs.judging import JUDGE_RUN_MARK
from mathprobe.store import Store

TEMPLATE = Path(__file__).with_name("templates") / "report.html.j2"
MAX_ITEMS = item_browser.MAX_ITEMS
LONG_FORM = 16              # a table of more figures than this is drawn one row per figure
FONT_FACE = "/* mathprobe:font-face */"
CAPTIONS = {
    "bars": "Whiskers: 95% intervals (hover a bar for its value, interval and n).",
    "dots": "Whiskers: 95% intervals (hover a row label for its values, intervals and n).",
    "curve": "Bands: 95% intervals.",
    "heatmap": "Each cell's number is its value; the intervals are in the tables below "
               "(hover a row label for them).",
    "stacked": "Stacked shares carry no whiskers (a share's interval is not where it is read "
               "on a stack): hover a run's label for its shares with their intervals and n, "
               "or see the table.",
}


def write(store: Store, run_ids: Sequence[str], out: Path, *, grader: str | None = None,
          data_dir: Path | None = None, figures_dir: Path | None = None,
          max_items: int = MAX_ITEMS,
          max_thumbnails: int = item_browser.MAX_THUMBNAILS) -> dict[str, Any]:
    """Build the report of `run_ids` into `out`; what was written (path, bytes, plots, items)."""
    started = time.perf_counter()
    result = comparing.compare(store, run_ids, grader=grader)
    notes.attach(store, result)             # what `report` prints under each run's figures
    runs = [r for b in result.benchmarks for r in b.runs]
    if figures_dir is not None:
        figures_dir.mkdir(parents=True, exist_ok=True)
    sections, n_plots, files = [], 0, []
    for b in result.benchmarks:
        drawn = []
        for plot in b.plots:
            keys = {k for _, k in plot.series}
            with_data = [r["run_id"] for r in b.runs
                         if keys & set(b.figures.get(r["run_id"], {}))]
            if not with_data:
                continue
            kind = plots.kind_of(plot, len(with_data))
            for part in plots.draw(plot, with_data, _figure_dicts(b)):
                drawn.append({"key": plot.key, "part": part.key, "title": part.title,
                              "note": plot.note, "caption": CAPTIONS.get(kind, CAPTIONS["bars"]),
                              "svg": plots.svg(part.fig, f"{part.key}-")})
                if figures_dir is not None:
                    files += plots.save(part.fig, str(figures_dir / part.key))
        n_plots += len(drawn)
        sections.append(_benchmark_section(b, drawn))
        errors, written = error_html.section(b.errors, figures_dir)
        sections[-1]["errors"] = errors
        n_plots += len(errors["plots"]) if errors else 0
        files += written
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    browser = item_browser.items(store, runs, data_dir, max_items, out.parent, max_thumbnails)
    page = _env().get_template(TEMPLATE.name).render(
        title=_title(result, runs), generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        db=store.path, result=result, runs=run_details(store, runs), sections=sections,
        glossary=glossary.CORE, browser=browser, font_face=FONT_FACE,
        tests_note=stats.tests_note(), star_rule=stats.star_rule(),
        browser_json=json.dumps(browser["data"], ensure_ascii=False, separators=(",", ":"))
        .replace("</", "<\\/"))
    # the CJK glyphs the page shows, embedded (only where it shows any)
    page = page.replace(FONT_FACE, fonts.css_font_face(page), 1)
    out.write_text(page, encoding="utf-8")
    return {"path": str(out), "bytes": out.stat().st_size, "runs": len(runs), "plots": n_plots,
            "items": len(browser["data"]["rows"]), "items_left_out": browser["left_out"],
            "figure_files": files, "seconds": time.perf_counter() - started}


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    return env


def _title(result: ComparisonResult, runs: list[dict[str, Any]]) -> str:
    ids = [r["run_id"] for r in runs]
    names = ", ".join(b.title for b in result.benchmarks)
    return (f"mathprobe: run {ids[0]} ({names})" if len(ids) == 1
            else f"mathprobe: {len(ids)} runs compared ({names})")


def _figure_dicts(b: BenchComparison) -> dict[str, dict[str, dict[str, Any]]]:
    return {run: {k: e.as_dict() for k, e in f.items()} for run, f in b.figures.items()}


def _cell(b: BenchComparison, run_id: str, stat: Stat) -> dict[str, Any]:
    e = b.figures.get(run_id, {}).get(stat.key)
    if e is None:
        return {"text": "-", "ci": "", "n": "", "run": run_id, "stat": stat.key, "value": "",
                "method": ""}
    count = f" ({e.count:.0f})" if e.count is not None and is_percent(stat.fmt) else ""
    return {"text": fmt_value(e.value, stat.fmt) + count, "ci": fmt_interval(e.ci_low, e.ci_high,
                                                                             stat.fmt),
            "n": f"n={e.n}", "run": run_id, "stat": stat.key, "value": repr(e.value),
            "method": stats.method_name(e.ci_method, full=True)}


def _table(b: BenchComparison, t: Table) -> dict[str, Any]:
    if t.rows == "model":
        return _model_table(b, t)
    if t.detail or len(t.stats) > LONG_FORM:
        return _long_table(b, t)
    runs = b.runs_of[t.key]
    rows = [{"label": r["run_id"], "sub": f"{r['model']} · {r['setting']} · grader {r['grader']}",
             "cells": [_cell(b, r["run_id"], s) for s in t.stats]} for r in runs]
    return {"key": t.key, "title": t.title, "note": _note(t.note, rows), "detail": t.detail,
            "long": False, "groups": None, "header": [s.label for s in t.stats], "rows": rows}


def _note(note: str, rows: list[dict[str, Any]]) -> str:
    """The table's note, and how its intervals were computed where the figures say."""
    methods = sorted({c["method"] for r in rows for c in r["cells"] if c.get("method")})
    return "; ".join(x for x in (note, "95% intervals: " + ", ".join(methods) if methods else "")
                     if x)


def _long_table(b: BenchComparison, t: Table) -> dict[str, Any]:
    """One row per figure (a concept, a knowledge point), sortable: per run its value, interval
    and n, and per later run its difference from the baseline where one was computed (with its
    p-value, adjusted for the many figures where the comparison gives one). Past
    MAX_SERIES_RUNS runs, one row per figure and run."""
    runs = [r["run_id"] for r in b.runs_of[t.key]]
    diffs = {(d.run_b, d.stat): d for d in b.differences}
    fmt = {s.key: s for s in t.stats}
    wide = len(runs) <= plots.MAX_SERIES_RUNS
    with_diff = [r for r in runs[1:] if any((r, s.key) in diffs for s in t.stats)]
    rows = []
    for s in t.stats:
        if wide:
            cells = [_cell(b, r, s) for r in runs]
            cells += [_diff_cell(diffs.get((r, s.key)), fmt[s.key], r) for r in with_diff]
            rows.append({"text": [s.label], "cells": cells})
        else:
            rows += [{"text": [s.label, r], "cells": [_cell(b, r, s)]
                      + ([_diff_cell(diffs.get((r, s.key)), fmt[s.key], r)] if with_diff else [])}
                     for r in runs if s.key in b.figures.get(r, {})]
    header = (["figure", *runs, *(f"{r} − {b.baseline}" for r in with_diff)] if wide else
              ["figure", "run", "value", *([f"run − {b.baseline}"] if with_diff else [])])
    return {"key": t.key, "title": t.title, "note": _note(t.note, rows), "detail": t.detail,
            "long": True, "groups": None, "header": header, "text_cols": 1 if wide else 2,
            "rows": rows, "n_figures": len(t.stats)}


def _p(name: str, p: float | None) -> str:
    text = fmt_p(p)
    return f"{name}{text}" if text.startswith("<") else f"{name}={text}"


def _diff_cell(d: Any, stat: Stat, run: str) -> dict[str, Any]:
    if d is None:
        return {"diff": True, "text": "-", "ci": "", "p": "", "sig": False, "way": "",
                "run": run, "stat": stat.key, "value": ""}
    test = formats.fmt_test(d.test, d.only_a, d.only_b)
    adjusted = getattr(d, "p_adjusted", None)
    p = _p("p", d.p_value) + (f", {_p('adj. p', adjusted)}" if adjusted is not None else "")
    # coloured by what the change means for this figure (lower IK is better), not by its sign
    ways: dict[bool | None, str] = {True: "better", False: "worse"}
    way = ways.get(getattr(d, "improved", None), "")
    return {"diff": True, "text": fmt_diff(d.diff, stat.fmt) + ("*" if d.significant else ""),
            "ci": fmt_interval(d.ci_low, d.ci_high, stat.fmt), "p": f"{p} {test}",
            "sig": d.significant, "way": way, "run": run, "stat": stat.key,
            "value": repr(d.diff)}


def _model_table(b: BenchComparison, t: Table) -> dict[str, Any]:
    """The paper's layout: one row per model; per figure (system) a group of setting columns;
    the row's average last."""
    rows = b.model_rows.get(t.key, [])
    settings = sorted({s for r in rows for s in r.runs},
                      key=lambda s: comparing.setting_order(b.settings, s))
    header = [st for _ in t.stats for st in settings] + ["Avg."]
    out_rows = []
    for r in rows:
        cells = []
        for s in t.stats:
            for st in settings:
                run_id = r.runs.get(st)
                cells.append(_cell(b, run_id, s) if run_id else
                             {"text": "-", "ci": "", "n": "", "run": "", "stat": s.key, "value": "",
                              "method": ""})
        a = r.average
        cells.append({"text": fmt_value(a.value), "ci": fmt_interval(a.ci_low, a.ci_high),
                      "n": f"{a.n} cells", "run": "", "stat": "avg", "value": repr(a.value),
                      "method": stats.method_name(a.ci_method, full=True)})
        out_rows.append({"label": r.model, "sub": ", ".join(f"{k}: {v}" for k, v in r.runs.items()),
                         "cells": cells})
    return {"key": t.key, "title": t.title, "note": t.note, "detail": t.detail, "long": False,
            "groups": [(s.label, len(settings)) for s in t.stats] + [("", 1)],
            "header": header, "rows": out_rows}


def _differences(b: BenchComparison) -> dict[str, Any] | None:
    if not b.differences:
        return None
    by = {(d.run_b, d.stat): d for d in b.differences}
    fmts, keys, groups = {}, [], []       # each figure once, under the table it is first in
    for t in b.tables:
        if t.detail or t.rows != "run" or len(t.stats) > LONG_FORM:
            continue
        kept = [s for s in t.stats if s.key not in fmts and any((r, s.key) in by for r, _ in by)]
        fmts.update({s.key: s for s in kept})
        keys += [s.key for s in kept]
        if kept:
            groups.append((t.title, len(kept)))
    later = [r["run_id"] for r in b.runs[1:]]
    better = formats.better_note((fmts[k].label, fmts[k].better) for k in keys)
    if len(later) < plots.MAX_SERIES_RUNS:
        # few runs: a row per figure under its table's heading, a column per run
        rows: list[dict[str, Any]] = []
        at = 0
        for title, count in groups:
            rows.append({"heading": title})
            rows += [{"label": fmts[k].label, "cells": [_diff_cell(by.get((r, k)), fmts[k], r)
                                                       for r in later]}
                     for k in keys[at:at + count]]
            at += count
        return {"baseline": b.baseline, "long": True, "better": better,
                "parts": [{"header": later, "rows": rows, "groups": []}]}
    header = [fmts[k].label for k in keys]
    rows = [{"label": r, "cells": [_diff_cell(by.get((r, k)), fmts[k], r) for k in keys]}
            for r in later]
    # many runs: a row per run, a column per figure, in parts that fit the page
    return {"baseline": b.baseline, "long": False, "better": better,
            "parts": html_layout.split({"header": header, "rows": rows, "groups": groups})}


def _ranking(k: Ranking) -> dict[str, Any]:
    """A declared ranking (e.g. a run's weakest concepts) as the template draws it."""
    return {"key": k.key, "run": k.run_id, "title": f"{k.title} — run {k.run_id}",
            "note": k.note,
            "rows": [{"rank": e.rank, "label": e.label, "warning": e.warning, "n": e.n,
                      "value": fmt_value(e.value, k.fmt)
                      + (f" ({e.count})" if e.count is not None else ""),
                      "ci": fmt_interval(e.ci_low, e.ci_high, k.fmt)} for e in k.entries]}


def _benchmark_section(b: BenchComparison, drawn: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"bench-{b.benchmark}", "title": b.title, "benchmark": b.benchmark,
            # a table of figures too wide for the page in parts (html_layout)
            "tables": [part for t in b.tables if not t.detail for table in [_table(b, t)]
                       for part in ([table] if table["long"] else html_layout.split(table))],
            "details": [_table(b, t) for t in b.tables if t.detail],
            "plots": drawn, "differences": _differences(b), "extras": b.sections,
            "rankings": [_ranking(k) for k in b.rankings],
            "notes": [(r["run_id"], b.notes[r["run_id"]]) for r in b.runs
                      if b.notes.get(r["run_id"])],
            "glossary": b.glossary, "n_runs": len(b.runs)}


def run_details(store: Store, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per run: what it is and what it cost, apart from the metrics (its judge runs included)."""
    ids = [r["run_id"] for r in runs]
    params = dict(store.query("SELECT run_id, params FROM runs WHERE list_contains(?, run_id)",
                              [ids]))
    judges: dict[str, list[dict[str, Any]]] = {}
    for j in store.query_dicts("SELECT * FROM run_summary WHERE contains(run_id, ?)",
                               [JUDGE_RUN_MARK]):
        judges.setdefault(j["run_id"].split(JUDGE_RUN_MARK)[0], []).append(j)
    out = []
    for r in runs:
        js = judges.get(r["run_id"], [])
        cost = float(r["cost_usd"] or 0)
        judge_cost = sum(float(j["cost_usd"] or 0) for j in js)
        card = run_card.build(store, r["run_id"])
        out.append({**r, "params": params.get(r["run_id"]) or "{}",
                    "card": [(k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False,
                                                                         default=str))
                             for k, v in run_card.flat(card).items()],
                    "card_recorded": card.get("recorded", False),
                    "judges": [f"{j['model']}: {j['n_ok']} judged, {j['n_judge_failed']} "
                               f"judge_failed, ${float(j['cost_usd'] or 0):.4f}" for j in js],
                    "cost_total": f"${cost + judge_cost:.4f}"
                                  + (f" (judge ${judge_cost:.4f})" if js else ""),
                    "n_truncated": r.get("n_truncated") or 0})
    return out
