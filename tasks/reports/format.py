"""Formatting shared by the reports: percentages, figures with intervals, differences, p-values
and paper-style tables."""
from __future__ import annotations

from rich.table import Table


def pct(x: float | None) -> str:
    """A fraction as a percentage with 2 decimals; '-' when there is none."""
    return "-" if x is None else f"{100 * x:.2f}"


def row_or_column(title: str, cells: list[tuple[str, str]], width: int, value_name: str,
                  col_width: int) -> Table:
    """The paper's layout, one row of named cells, when the terminal is wide enough
    (`col_width` per cell); otherwise the same cells as a column (figure | value)."""
    if width >= col_width * len(cells):
        table = Table(title=title, title_justify="left")
        for name, _ in cells:
            table.add_column(name, justify="right", no_wrap=True)
        table.add_row(*(value for _, value in cells))
        return table
    table = Table(title=title, title_justify="left", min_width=min(len(title), width))
    table.add_column("figure")
    table.add_column(value_name, justify="right")
    for name, value in cells:
        table.add_row(name, value)
    return table


# figures shown x100, and with how many decimals: percentages (the papers' 2), the CMMaTH
# authors' scores (their 1), Rouge-L x100; other figures ('number') as they are, 4 decimals
SCALED = {"percent": 2, "percent1": 1, "x100": 2}


def is_percent(fmt: str) -> bool:
    return fmt in ("percent", "percent1")


def fmt_value(x: float | None, fmt: str = "percent") -> str:
    """A figure as shown (see SCALED); '-' when there is none."""
    if x is None:
        return "-"
    return f"{100 * x:.{SCALED[fmt]}f}" if fmt in SCALED else f"{x:.4f}"


def fmt_interval(lo: float | None, hi: float | None, fmt: str = "percent",
                 digits: int | None = None) -> str:
    """[lo, hi] as the figure is shown (`digits` decimals instead, e.g. 1 on a terminal)."""
    if lo is None or hi is None:
        return ""
    if digits is None:
        return f"[{fmt_value(lo, fmt)}, {fmt_value(hi, fmt)}]"
    k = 100 if fmt in SCALED else 1
    return f"[{k * lo:.{digits}f}, {k * hi:.{digits}f}]"


def fmt_diff(x: float | None, fmt: str = "percent") -> str:
    """A difference of two figures, signed (percentage points for percentages)."""
    if x is None:
        return "-"
    return f"{100 * x:+.{SCALED[fmt]}f}" if fmt in SCALED else f"{x:+.4f}"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"
