"""Formatting shared by the reports: percentages, figures with intervals, differences and
p-values."""
from __future__ import annotations


def pct(x: float | None) -> str:
    """A fraction as a percentage with 2 decimals; '-' when there is none."""
    return "-" if x is None else f"{100 * x:.2f}"


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
