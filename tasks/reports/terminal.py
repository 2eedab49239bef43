"""A run's declared figures (`Benchmark.figures`, tasks.figures) as the run report shows them:
`build` reads every table's figures with their 95% intervals and n through the comparison
machinery (the same numbers `compare`, the Markdown artifact and the HTML report show; what
`report --json` prints), `render` draws the tables that are not `detail` for the terminal, and
`flat` gives (figure, value) pairs for a sweep's table. Used for a benchmark that declares its
figures and writes no report of its own."""
from __future__ import annotations

from typing import Any

from rich.table import Table as RichTable

from mathprobe.tasks.contract import Benchmark
from mathprobe.tasks.reports import compare
from mathprobe.tasks.reports.format import fmt_interval, fmt_value, is_percent
from mathprobe.tasks.store import Store


def build(store: Store, bench: Benchmark, run: dict[str, Any], grader: str) -> dict[str, Any]:
    """{"grader", "tables": [{key, title, note, detail, figures: [{key, label, fmt, value,
    ci_low, ci_high, n, count, ci_method}]}]} of one run (its `run_summary` row)."""
    b = compare.compare_benchmark(store, bench, [{**run, "grader": grader}])
    figures = b.figures.get(run["run_id"], {})
    return {"grader": grader, "tables": [
        {"key": t.key, "title": t.title, "note": t.note, "detail": t.detail,
         "figures": [{"key": s.key, "label": s.label, "fmt": s.fmt, **figures[s.key].as_dict()}
                     for s in t.stats if s.key in figures]}
        for t in b.tables]}


def _value(f: dict[str, Any]) -> str:
    count = f" ({f['count']:.0f})" if f.get("count") is not None and is_percent(f["fmt"]) else ""
    return fmt_value(f["value"], f["fmt"]) + count


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    """One table per declared table that is not `detail`: figure | value (count) | 95%
    interval | n; values x100 where the figure is a percentage."""
    out: list[Any] = []
    for t in report["tables"]:
        if t["detail"] or not t["figures"]:
            continue
        unit = " (%)" if all(is_percent(f["fmt"]) for f in t["figures"]) else ""
        table = RichTable(title=t["title"] + unit, title_justify="left",
                          caption=t["note"] or None, caption_justify="left")
        for col in ("figure", "value", "95% interval", "n"):
            table.add_column(col, justify="left" if col == "figure" else "right")
        for f in t["figures"]:
            table.add_row(f["label"], _value(f), fmt_interval(f["ci_low"], f["ci_high"], f["fmt"]),
                          str(f["n"]))
        out.append(table)
    return out


def flat(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(figure, value) of every declared figure, for a sweep's table."""
    return [(f["label"], _value(f)) for t in report["tables"] for f in t["figures"]]
