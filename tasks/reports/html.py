"""`mathprobe report --html FILE`: one self-contained HTML file for one run or a comparison.

Everything is inline (CSS, the plots as SVG, the item browser's data and script), so the file
opens offline and can be mailed around: no CDN, no network at view time. Sections: the runs'
details apart from the metrics; per benchmark, the paper's tables with 95% intervals and n, the
plots a paper would show, the differences from the baseline with their tests, extra tables
(WE-MATH's KCA transition matrix); a glossary; and an item browser (every answer with its
extracted answer, gold, verdict per grader, status and image link, filterable).
"""
from __future__ import annotations

import json
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2

from mathprobe.tasks import registry
from mathprobe.tasks.contract import Stat, Table
from mathprobe.tasks.errors import MathprobeError
from mathprobe.tasks.reports import compare as comparing
from mathprobe.tasks.reports import card as run_card
from mathprobe.tasks.reports import glossary, plots
from mathprobe.tasks.reports.compare import BenchComparison, ComparisonResult
from mathprobe.tasks.reports.format import fmt_diff, fmt_interval, fmt_p, fmt_value, is_percent
from mathprobe.tasks.store import Store

TEMPLATE = Path(__file__).with_name("templates") / "report.html.j2"
MAX_ITEMS = 20_000          # answers in the item browser at most (whole runs, in order)
MAX_TEXT = 4_000            # characters of a question or response kept in the browser


def write(store: Store, run_ids: Sequence[str], out: Path, *, grader: str | None = None,
          data_dir: Path | None = None, figures_dir: Path | None = None,
          max_items: int = MAX_ITEMS) -> dict[str, Any]:
    """Build the report of `run_ids` into `out`; what was written (path, bytes, plots, items)."""
    started = time.perf_counter()
    result = comparing.compare(store, run_ids, grader=grader)
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
            fig = plots.draw(plot, with_data, _figure_dicts(b))
            drawn.append({"key": plot.key, "title": plot.title, "note": plot.note,
                          "heatmap": plots.kind_of(plot, len(with_data)) == "heatmap",
                          "svg": plots.svg(fig)})
            if figures_dir is not None:
                files += plots.save(fig, str(figures_dir / plot.key))
        n_plots += len(drawn)
        sections.append(_benchmark_section(b, drawn))
    browser = items(store, runs, data_dir, max_items)
    page = _env().get_template(TEMPLATE.name).render(
        title=_title(result), generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        db=store.path, result=result, runs=run_details(store, runs), sections=sections,
        glossary=glossary.CORE, browser=browser,
        browser_json=json.dumps(browser["data"], ensure_ascii=False, separators=(",", ":"))
        .replace("</", "<\\/"))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return {"path": str(out), "bytes": out.stat().st_size, "runs": len(runs), "plots": n_plots,
            "items": len(browser["data"]["rows"]), "items_left_out": browser["left_out"],
            "figure_files": files, "seconds": time.perf_counter() - started}


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    return env


def _title(result: ComparisonResult) -> str:
    ids = result.run_ids()
    names = ", ".join(b.title for b in result.benchmarks)
    return (f"mathprobe: run {ids[0]} ({names})" if len(ids) == 1
            else f"mathprobe: {len(ids)} runs compared ({names})")


def _figure_dicts(b: BenchComparison) -> dict[str, dict[str, dict[str, Any]]]:
    return {run: {k: e.as_dict() for k, e in f.items()} for run, f in b.figures.items()}


def _cell(b: BenchComparison, run_id: str, stat: Stat) -> dict[str, Any]:
    e = b.figures.get(run_id, {}).get(stat.key)
    if e is None:
        return {"text": "-", "ci": "", "n": "", "run": run_id, "stat": stat.key, "value": ""}
    count = f" ({e.count:.0f})" if e.count is not None and is_percent(stat.fmt) else ""
    return {"text": fmt_value(e.value, stat.fmt) + count, "ci": fmt_interval(e.ci_low, e.ci_high,
                                                                             stat.fmt),
            "n": f"n={e.n}", "run": run_id, "stat": stat.key, "value": repr(e.value)}


def _table(b: BenchComparison, t: Table) -> dict[str, Any]:
    if t.rows == "model":
        return _model_table(b, t)
    runs = b.table_runs(t)
    return {"key": t.key, "title": t.title, "note": t.note, "detail": t.detail,
            "groups": None, "header": [s.label for s in t.stats],
            "rows": [{"label": r["run_id"], "sub": f"{r['model']} · {r['setting']} · "
                      f"grader {r['grader']}", "cells": [_cell(b, r["run_id"], s) for s in t.stats]}
                     for r in runs]}


def _model_table(b: BenchComparison, t: Table) -> dict[str, Any]:
    """The paper's layout: one row per model; per figure (system) a group of setting columns;
    the row's average last."""
    rows = b.model_rows.get(t.key, [])
    bench = registry.get(b.benchmark)
    settings = sorted({s for r in rows for s in r.runs},
                      key=lambda s: comparing.setting_order(bench, s))
    header = [st for _ in t.stats for st in settings] + ["Avg."]
    out_rows = []
    for r in rows:
        cells = []
        for s in t.stats:
            for st in settings:
                run_id = r.runs.get(st)
                cells.append(_cell(b, run_id, s) if run_id else
                             {"text": "-", "ci": "", "n": "", "run": "", "stat": s.key, "value": ""})
        a = r.average
        cells.append({"text": fmt_value(a.value), "ci": fmt_interval(a.ci_low, a.ci_high),
                      "n": f"{a.n} cells", "run": "", "stat": "avg", "value": repr(a.value)})
        out_rows.append({"label": r.model, "sub": ", ".join(f"{k}: {v}" for k, v in r.runs.items()),
                         "cells": cells})
    return {"key": t.key, "title": t.title, "note": t.note, "detail": t.detail,
            "groups": [(s.label, len(settings)) for s in t.stats] + [("", 1)],
            "header": header, "rows": out_rows}


def _differences(b: BenchComparison) -> dict[str, Any] | None:
    if not b.differences:
        return None
    stats_ = [s for t in b.tables if not t.detail and t.rows == "run" for s in t.stats]
    keys = list(dict.fromkeys(s.key for s in stats_))
    by = {(d.run_b, d.stat): d for d in b.differences}
    fmts = {s.key: s for s in stats_}
    header = [fmts[k].label for k in keys if any((r, k) in by for r, _ in by)]
    keys = [k for k in keys if any((r, k) in by for r, _ in by)]
    rows = []
    for r in b.runs[1:]:
        cells = []
        for k in keys:
            d = by.get((r["run_id"], k))
            if d is None:
                cells.append({"text": "-", "ci": "", "p": "", "sig": False, "run": r["run_id"],
                              "stat": k})
                continue
            test = (f"McNemar {d.only_a}/{d.only_b}" if d.test == "mcnemar" else "bootstrap")
            cells.append({"text": fmt_diff(d.diff, fmts[k].fmt) + ("*" if d.significant else ""),
                          "ci": fmt_interval(d.ci_low, d.ci_high, fmts[k].fmt),
                          "p": f"p={fmt_p(d.p_value)} {test}", "sig": d.significant,
                          "run": r["run_id"], "stat": k})
        rows.append({"label": r["run_id"], "cells": cells})
    return {"baseline": b.baseline, "header": header, "rows": rows}


def _benchmark_section(b: BenchComparison, drawn: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"bench-{b.benchmark}", "title": b.title, "benchmark": b.benchmark,
            "tables": [_table(b, t) for t in b.tables if not t.detail],
            "details": [_table(b, t) for t in b.tables if t.detail],
            "plots": drawn, "differences": _differences(b), "extras": b.sections,
            "glossary": b.glossary, "n_runs": len(b.runs)}


def run_details(store: Store, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per run: what it is and what it cost, apart from the metrics (its judge runs included)."""
    ids = [r["run_id"] for r in runs]
    params = dict(store.query("SELECT run_id, params FROM runs WHERE list_contains(?, run_id)",
                              [ids]))
    judges: dict[str, list[dict[str, Any]]] = {}
    for j in store.query_dicts("SELECT * FROM run_summary WHERE contains(run_id, ?)",
                               [comparing.JUDGE_RUN_MARK]):
        judges.setdefault(j["run_id"].split(comparing.JUDGE_RUN_MARK)[0], []).append(j)
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
                                  + (f" (judge ${judge_cost:.4f})" if js else "")})
    return out


def items(store: Store, runs: list[dict[str, Any]], data_dir: Path | None,
          max_items: int) -> dict[str, Any]:
    """The item browser's data: per answer (the response that counts) its run, item, concept,
    question, gold, status, response, image link and (extracted, correct) per grader. Whole runs
    in order, up to `max_items` answers."""
    take, total, left_out = [], 0, []
    counts = dict(store.query("SELECT run_id, count(*) FROM current_responses WHERE "
                              "list_contains(?, run_id) GROUP BY run_id",
                              [[r["run_id"] for r in runs]]))
    for r in runs:
        n = counts.get(r["run_id"], 0)
        if total + n > max_items and take:
            left_out.append(r["run_id"])
            continue
        take.append(r["run_id"])
        total += n
    rows = store.query(
        "SELECT c.run_id, c.item_id, i.concept, i.question, i.gold, c.status, c.response, "
        "c.error FROM current_responses c JOIN runs r ON r.run_id = c.run_id "
        "JOIN items i ON i.benchmark = r.benchmark AND i.item_id = c.item_id "
        "WHERE list_contains(?, c.run_id) ORDER BY list_position(?, c.run_id), c.item_id",
        [take, take])
    verdicts: dict[tuple[str, str], dict[str, list]] = {}
    graders: set[str] = set()
    for run_id, item_id, grader, extracted, correct in store.query(
            "SELECT run_id, item_id, grader, extracted, correct FROM item_verdicts "
            "WHERE list_contains(?, run_id)", [take]):
        verdicts.setdefault((run_id, item_id), {})[grader] = [extracted, correct]
        graders.add(grader)
    images = _images(runs, take, data_dir)
    order = {run_id: k for k, run_id in enumerate(take)}
    out = []
    for run_id, item_id, concept, question, gold, status, response, error in rows:
        bench = images.get(run_id, {})
        out.append([order[run_id], item_id, concept or "", _cut(question), gold or "", status,
                    _cut(response if response is not None else (error or "")),
                    bench.get(item_id, ""), verdicts.get((run_id, item_id), {})])
    grader_of = {r["run_id"]: r["grader"] for r in runs}
    return {"data": {"runs": take, "run_graders": [grader_of[r] for r in take],
                     "graders": sorted(graders), "rows": out},
            "left_out": left_out, "images": bool(images)}


def _images(runs: list[dict[str, Any]], take: list[str], data_dir: Path | None
            ) -> dict[str, dict[str, str]]:
    """run_id -> item_id -> file:// URL of its image, from the benchmark's data (if found)."""
    try:
        root = registry.resolve_data_dir(data_dir)
    except MathprobeError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for name in {r["benchmark"] for r in runs if r["run_id"] in take}:
        try:
            dataset = registry.get(name).load(root)
        except (MathprobeError, OSError):
            continue
        urls = {i.item_id: Path(i.image_path).resolve().as_uri()
                for i in dataset.items if i.image_path and Path(i.image_path).is_file()}
        for r in runs:
            if r["benchmark"] == name:
                out[r["run_id"]] = urls
    return out


def _cut(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= MAX_TEXT else (text[:MAX_TEXT] + f" … [{len(text) - MAX_TEXT} "
                                               "more characters: see the responses table]")
