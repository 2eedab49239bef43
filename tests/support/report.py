"""Reading a run report (`mathprobe report --json`, `mathprobe.reports.build`) the way every test
does: a declared figure by its key, the figures of one declared table, the notes."""
from __future__ import annotations

from typing import Any


def figure(report: dict[str, Any], key: str, table: str | None = None) -> dict[str, Any]:
    """The figure `key` (value, ci_low, ci_high, n, count, label, fmt) of the report's declared
    tables, or of the table `table` only; KeyError naming what is there when it is absent."""
    found = [f for t in report["tables"] if table is None or t["key"] == table
             for f in t["figures"] if f["key"] == key]
    if not found:
        raise KeyError(f"no figure {key!r}" + (f" in table {table!r}" if table else "")
                       + f"; tables: {[t['key'] for t in report['tables']]}")
    return found[0]


def figures(report: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """The figures of the declared table `table`, by key, in its order."""
    (t,) = [t for t in report["tables"] if t["key"] == table]
    return {f["key"]: f for f in t["figures"]}


def value(report: dict[str, Any], key: str, table: str | None = None) -> float | None:
    return figure(report, key, table)["value"]
