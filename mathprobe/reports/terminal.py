"""A run's declared figures (`Benchmark.comparison`, mathprobe.figures) as the run report shows them:
`build` reads every table's figures with their 95% intervals and n through the comparison
machinery (the same numbers `compare`, the Markdown artifact and the HTML report show), `render`
draws them with the run's notes (mathprobe.reports.notes) under them: the tables that are not
`detail` for the terminal in each table's declared layout, and `flat` gives (figure, value)
pairs for a sweep's table. Every benchmark's run report is drawn here: none writes its own."""
from __future__ import annotations

from typing import Any

from rich.table import Table as RichTable
from rich.text import Text

from mathprobe.contract import Benchmark
from mathprobe.reports import compare, error_render
from mathprobe.reports.format import fmt_interval, fmt_value, is_percent
from mathprobe.store import Store


def build(store: Store, bench: Benchmark, run: dict[str, Any], grader: str) -> dict[str, Any]:
    """{"grader", "tables": [{key, title, note, detail, layout, rows, figures: [{key, label, fmt,
    value, ci_low, ci_high, n, count, ci_method}]}], "errors", "rankings"} of one run (its
    `run_summary` row). Only this run's figures: a rows='model' table (e.g. ConceptMath's Table
    2) is its row of the run's own setting, a figure per figure keyed 'key@setting', and their
    average keyed 'average' (the model's other runs are not this run's report: `compare`
    and `report --html --runs` put a model's settings side by side)."""
    runs = [{**run, "grader": grader}]
    b = compare.compare_benchmark(store, bench, runs)
    figures = b.figures.get(run["run_id"], {})
    tables = []
    for t in b.tables:
        shown = {"key": t.key, "title": t.title, "note": t.note, "detail": t.detail,
                 "layout": t.layout, "rows": t.rows}
        if t.rows == "model":
            row = next((m for m in b.model_rows.get(t.key, []) if m.model == run["model"]), None)
            shown["figures"] = [] if row is None else [
                {"key": f"{s.key}@{setting}", "label": f"{s.label} {setting}", "fmt": s.fmt,
                 "setting": setting, "run_id": rid, **e.as_dict()}
                for setting, rid in row.runs.items() for s in t.stats
                if (e := b.figures.get(rid, {}).get(s.key)) is not None] + [
                {"key": "average", "label": "Avg.", "fmt": t.stats[0].fmt,
                 **row.average.as_dict()}]
        else:
            shown["figures"] = [{"key": s.key, "label": s.label, "fmt": s.fmt,
                                 **figures[s.key].as_dict()}
                                for s in t.stats if s.key in figures]
        tables.append(shown)
    errors = b.errors
    return {"grader": grader, "tables": tables, "errors": errors,
            "rankings": [k.as_dict() for k in b.rankings if k.run_id == run["run_id"]]}


def _value(f: dict[str, Any]) -> str:
    """The figure as the papers print it: 'rate (count)' where it is a share of counted things."""
    count = f" ({f['count']:.0f})" if f.get("count") is not None and is_percent(f["fmt"]) else ""
    return fmt_value(f["value"], f["fmt"]) + count


def _title(t: dict[str, Any]) -> str:
    unit = " (%)" if all(is_percent(f["fmt"]) for f in t["figures"]) else ""
    sizes = {f["n"] for f in t["figures"]}
    return t["title"] + unit + (f", n = {sizes.pop()}" if len(sizes) == 1 else "")


def _wide(t: dict[str, Any], width: int) -> RichTable | None:
    """The paper's one row, a column per figure: with the counts and the intervals (under the
    values) where the terminal is wide enough, else without the intervals, else without the
    counts too; None where even the bare values do not fit (the caller lays it out long)."""
    for counts, intervals in ((True, True), (True, False), (False, False)):
        cells = [(f["label"], _value(f) if counts else fmt_value(f["value"], f["fmt"]),
                  fmt_interval(f["ci_low"], f["ci_high"], f["fmt"], digits=1) if intervals
                  else "") for f in t["figures"]]
        if width >= sum(max(map(len, c)) + 3 for c in cells) + 1:
            break
    else:
        return None
    table = RichTable(title=_title(t), title_justify="left", caption=t["note"] or None,
                      caption_justify="left")
    for label, *_ in cells:
        table.add_column(label, justify="right", no_wrap=True)
    table.add_row(*(value for _, value, _ in cells))
    if intervals:
        table.add_row(*(Text(interval, style="dim") for *_, interval in cells))
    return table


def _long(t: dict[str, Any]) -> RichTable:
    """figure | value (count) | 95% interval | n, one line per figure."""
    table = RichTable(title=t["title"] + (" (%)" if all(is_percent(f["fmt"]) for f in t["figures"])
                                          else ""),
                      title_justify="left", caption=t["note"] or None, caption_justify="left")
    for col in ("figure", "value", "95% interval", "n"):
        table.add_column(col, justify="left" if col == "figure" else "right")
    for f in t["figures"]:
        table.add_row(f["label"], _value(f), fmt_interval(f["ci_low"], f["ci_high"], f["fmt"]),
                      str(f["n"]))
    return table


def ranking_table(k: dict[str, Any]) -> RichTable:
    """A declared ranking (mathprobe.figures.Ranking): rank | what | value (count) | 95%
    interval | n, a '!' and the warning under an entry whose place is not established."""
    table = RichTable(title=k["title"] + (" (%)" if is_percent(k["fmt"]) else ""),
                      title_justify="left", caption=k["note"] or None, caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("concept", max_width=72, overflow="fold")
    for col in ("value", "95% interval", "n"):
        table.add_column(col, justify="right", no_wrap=True)
    for e in k["entries"]:
        value = fmt_value(e["value"], k["fmt"]) + (f" ({e['count']})" if e["count"] is not None
                                                   else "")
        table.add_row(f"{e['rank']}{'!' if e['warning'] else ''}", e["label"], value,
                      fmt_interval(e["ci_low"], e["ci_high"], k["fmt"]), str(e["n"]))
        if e["warning"]:
            table.add_row("", Text(f"! {e['warning']}", style="yellow"), "", "", "")
    return table


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    """One table per declared table that is not `detail`, in its layout ('wide' falls back to
    'long' on a narrow terminal), the declared rankings, then the notes in yellow."""
    out: list[Any] = []
    for t in report["tables"]:
        if t["detail"] or not t["figures"]:
            continue
        out.append((t.get("layout") == "wide" and _wide(t, width)) or _long(t))
    out += [ranking_table(k) for k in report.get("rankings", [])]
    out += [Text(note, style="yellow") for note in report.get("notes", [])]
    out += error_render.terminal(report.get("errors"))
    return out


def flat(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) of every figure of the tables the terminal shows, each once (WE-MATH's IK
    is in both rules' tables), for a sweep's table; a label two figures share is prefixed by
    its table's title."""
    seen: set[str] = set()
    shown = []
    for t in report["tables"]:
        for f in [] if t["detail"] else t["figures"]:
            if f["key"] not in seen:
                seen.add(f["key"])
                shown.append((t["title"], f))
    labels = [f["label"] for _, f in shown]
    return [((f"{title}: " if labels.count(f["label"]) > 1 else "") + f["label"], _value(f))
            for title, f in shown]
