"""What the plots write and how they measure it: sizes, the label wrapping, hover titles, and a
figure read from the compared figures (mathprobe.reports.plots, mathprobe.reports.plot_kinds)."""
from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from mathprobe.contract import Plot

MAX_SERIES_RUNS = 6            # more runs than this: bars and dots are drawn as heat maps
ROWS_PER_PANEL = 40            # rows (headings included) of one panel of a heat map / dot plot
PANELS = 2                     # panels side by side in one figure; more: another part
FONT = 8                       # points
ROW_FONT = 7                   # points, the row labels of heat maps and dot plots
CHAR_W = 0.6 / 72              # inches per character per point of font size (DejaVu Sans)
WRAP = 46                      # characters per line of a row label; two lines at most

Figures = Mapping[str, Mapping[str, Mapping[str, Any]]]   # run_id -> stat key -> estimate dict


def text_width(text: str, size: float) -> float:
    """Inches a line of `text` takes at `size` points: a CJK glyph is a full em, others about
    0.6 em (DejaVu Sans), a little generous so labels never run off the figure."""
    ems = sum(1.0 if ord(c) >= 0x2E80 else 0.6 for c in text)
    return ems * size / 72


def value(figures: Figures, run: str, key: str) -> tuple[float, float, float] | None:
    """(value, ci_low, ci_high) of a figure, or None; an absent end is the value itself."""
    e = figures.get(run, {}).get(key)
    if not e or e.get("value") is None:
        return None
    v = e["value"]
    lo, hi = e.get("ci_low"), e.get("ci_high")
    return v, v if lo is None else lo, v if hi is None else hi


def describe(plot: Plot, figures: Figures, run: str, key: str, label: str) -> str:
    """A figure as its hover title says it: 'IK 77.0% [73.5, 80.6] n=525 (run v1)'."""
    e = figures.get(run, {}).get(key) or {}
    v = value(figures, run, key)
    if v is None:
        return f"{label}: no data (run {run})"
    unit = plot.unit
    text = f"{label}: {plot.scale * v[0]:.1f}{unit} [{plot.scale * v[1]:.1f}, " \
           f"{plot.scale * v[2]:.1f}]"
    if e.get("n") is not None:
        text += f" n={e['n']}"
    if e.get("ci_method"):
        text += f" ({e['ci_method']})"
    return f"{text} (run {run})"


def wrap(label: str, width: int = WRAP, lines: int = 2) -> tuple[str, bool]:
    """`label` wrapped at `width` characters (breaking after '/' too); (text, abbreviated):
    past `lines` lines the last is cut with '…' and the full name goes to the hover title."""
    if len(label) <= width:
        return label, False
    spaced = label.replace("/", "/\u200b")
    parts = [p.replace("\u200b", "") for p in textwrap.wrap(spaced, width, break_long_words=False)]
    if len(parts) <= lines:
        return "\n".join(parts), False
    kept = parts[:lines]
    kept[-1] = kept[-1][:width - 1].rstrip() + "…"
    return "\n".join(kept), True


def hover(fig: Figure, artist: Artist, text: str) -> None:
    """Give `artist` a hover title in the SVG (its group gets an id and a <title>)."""
    titles = fig.__dict__.setdefault("mathprobe_titles", {})
    gid = f"mp{len(titles)}"
    artist.set_gid(gid)
    titles[gid] = text
