"""What the plots write and how they measure it: sizes, the label wrapping, hover titles, the
legend laid out to fit its figure, and a figure read from the compared figures
(mathprobe.reports.plots, mathprobe.reports.plot_kinds)."""
from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from matplotlib.artist import Artist
from matplotlib.figure import Figure

from mathprobe.contract import Plot
from mathprobe.reports.stats import method_name

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
        text += f" ({method_name(e['ci_method'])})"
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


LEGEND_TOP_IN = 0.26           # the legend's top, below the figure's (the title is above it)


def legend(fig: Figure, handles: list, ncol: int | None = None) -> None:
    """The legend on its own lines under the title, in as many columns (at most 4) as fit the
    figure's width, measured as drawn: a legend wider than its figure is cut at the left edge
    (three ConceptMath runs' legend showed 'ance' for 'chance-conceptmath'). Where its rows
    need more room than the axes leave above them, the figure grows at the top."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    w, h = fig.get_size_inches()
    renderer = FigureCanvasAgg(fig).get_renderer()
    fits = 0.995 * w - 0.05                         # inches from the left edge to its right
    for cols in range(ncol or min(len(handles), 4), 0, -1):
        rows = -(-len(handles) // cols)
        # matplotlib fills a legend column by column: ordered so that it reads row by row
        ordered = [handles[r * cols + c] for c in range(cols) for r in range(rows)
                   if r * cols + c < len(handles)]
        drawn = fig.legend(handles=ordered, loc="upper right",
                           bbox_to_anchor=(0.995, 1 - LEGEND_TOP_IN / h), frameon=False,
                           fontsize=FONT, ncol=cols, borderaxespad=0.1, handlelength=1.4,
                           columnspacing=1.0)
        box = drawn.get_window_extent(renderer)
        if box.width / fig.dpi <= fits or cols == 1:
            break
        drawn.remove()
    for text in drawn.get_texts():         # one entry wider than the figure: cut, with "…"
        while text.get_window_extent(renderer).width / fig.dpi > fits - 0.4 \
                and len(text.get_text()) > 4:
            text.set_text(text.get_text()[:-2] + "…")
    need = LEGEND_TOP_IN + drawn.get_window_extent(renderer).height / fig.dpi + 0.06
    room = h * (1 - max(ax.get_position().y1 for ax in fig.axes))
    if need > room:
        _grow(fig, need - room)
        drawn.set_bbox_to_anchor((0.995, 1 - LEGEND_TOP_IN / fig.get_size_inches()[1]),
                                 transform=fig.transFigure)


def _grow(fig: Figure, extra: float) -> None:
    """`extra` inches more at the figure's top, every axes kept where it is from the bottom."""
    w, h = fig.get_size_inches()
    for ax in fig.axes:
        x0, y0, aw, ah = ax.get_position().bounds
        ax.set_position((x0, y0 * h / (h + extra), aw, ah * h / (h + extra)))
    fig.set_size_inches(w, h + extra)
