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


TESTS = {"mcnemar": ("McN", "McNemar"), "sign": ("sign", "sign test"),
         "bootstrap": ("bootstrap", "bootstrap")}


def fmt_test(test: str, only_a: int | None, only_b: int | None, short: bool = False) -> str:
    """A difference's test as shown: 'McNemar k/l' (items right only in the baseline / only in
    the run), 'sign test k/l' (units whose figure was higher in the baseline / in the run),
    'bootstrap'; `short` for the terminal ('McN k/l')."""
    name = TESTS.get(test, (test, test))[0 if short else 1]
    return name if only_a is None or test == "bootstrap" else f"{name} {only_a}/{only_b}"


def better_note(figures) -> str:
    """Which way is better for the figures shown, (label, better) pairs of one benchmark's
    (`Stat.better`: 'higher', 'lower' or None), in the words printed beside its differences:
    each benchmark names its own ('lower IK, IG, RM are better' is WE-MATH's alone)."""
    seen = dict.fromkeys(figures)
    lower = list(dict.fromkeys(label for label, better in seen if better == "lower"))
    neither = list(dict.fromkeys(label for label, better in seen if better is None))
    if not lower and not neither:
        return "higher is better for every figure"
    parts = [f"lower {', '.join(lower)} {'is' if len(lower) == 1 else 'are'} better"] if lower \
        else []
    if neither:
        parts.append(f"{', '.join(neither)} {'has' if len(neither) == 1 else 'have'} no better "
                     "side")
    return "; ".join(parts) + ("; higher is better for the others"
                               if len(seen) > len(lower) + len(neither) else "")
