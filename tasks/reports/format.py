"""Formatting shared by the benchmarks' reports: percentages and paper-style tables."""
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
