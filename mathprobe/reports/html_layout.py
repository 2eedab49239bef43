"""How wide the HTML report's tables of figures are, and splitting those that would not fit the
page into parts.

A table wider than the window scrolls sideways inside its box or runs off the page: WE-MATH's
Table 1 (S1-S3 and 12 categories) was 1,537 px wide, CMMaTH's 14 subjects 1,757 px. A column's
width is estimated from its text (each font's average advance, a little generous, as the plots
measure their labels), and a table whose columns would not fit `PAGE_PX` beside the row labels
is split into parts of consecutive columns ("part 1 of 2"), each with the row labels again, a
group of columns (ConceptMath's settings under a system, a differences table's source table)
kept whole where it fits. The browser test measures the result (tests/reports/test_layout.py).
"""
from __future__ import annotations

from typing import Any

PAGE_PX = 1224         # the page's content at a 1280 px window (the README's screenshot)
LABEL_PX = 356         # the row labels' column at most (their text wraps at 340 px)
PAD_PX = 17            # a cell's padding and border
BOLD_PX, SMALL_PX = 7.8, 6.5     # average advance of the 13 px figure, the 11 px interval and n


def column_px(header: str, cells: list[dict[str, Any]]) -> float:
    """The width a column of figure cells takes: its widest line (a figure, its interval, n
    or a p-value, each kept on one line) or the heading's longest word (a heading wraps)."""
    words = max((len(w) for w in header.split()), default=1) * BOLD_PX
    lines = [len(c.get("text", "")) * BOLD_PX for c in cells]
    lines += [len(c.get(k, "")) * SMALL_PX for c in cells for k in ("ci", "n")]
    lines += [max((len(w) for w in c.get("p", "").split(", ")), default=0) * SMALL_PX
              for c in cells]
    return max([words, *lines]) + PAD_PX


def split(table: dict[str, Any], budget: float = PAGE_PX - LABEL_PX) -> list[dict[str, Any]]:
    """`table` (its `header`, `rows` of `cells`, optional `groups` of (label, span)) as one or
    more tables of consecutive columns, each at most `budget` px of columns wide."""
    header = table["header"]
    widths = [column_px(h, [r["cells"][k] for r in table["rows"] if "cells" in r])
              for k, h in enumerate(header)]
    spans = [span for _, span in table.get("groups") or []] or [1] * len(header)
    chunks: list[list[int]] = [[]]
    used, at = 0.0, 0
    for span in spans:
        block = list(range(at, at + span))
        at += span
        need = sum(widths[k] for k in block)
        if need > budget:                    # a group wider than a part: its columns alone
            for k in block:
                if chunks[-1] and used + widths[k] > budget:
                    chunks.append([])
                    used = 0.0
                chunks[-1].append(k)
                used += widths[k]
            continue
        if chunks[-1] and used + need > budget:
            chunks.append([])
            used = 0.0
        chunks[-1] += block
        used += need
    if len(chunks) == 1:
        return [table]
    return [_part(table, cols, k, len(chunks)) for k, cols in enumerate(chunks)]


def _part(table: dict[str, Any], cols: list[int], k: int, n: int) -> dict[str, Any]:
    """The columns `cols` of `table`, titled as part k + 1 of n."""
    groups = None
    if table.get("groups"):
        groups, at = [], 0
        for label, span in table["groups"]:
            inside = len([c for c in range(at, at + span) if c in cols])
            if inside:
                groups.append((label, inside))
            at += span
    rows = [{**r, "cells": [r["cells"][c] for c in cols]} if "cells" in r else r
            for r in table["rows"]]
    title = table.get("title")
    return {**table, "header": [table["header"][c] for c in cols], "groups": groups,
            "rows": rows, "title": f"{title} (part {k + 1} of {n})" if title else title,
            "note": table.get("note", "") if k == 0 else "", "part": k + 1, "parts": n}
