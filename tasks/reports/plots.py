"""The report's plots, drawn with matplotlib (Agg) from a benchmark's `Plot` specs and figures
already computed: every value with its interval. Output is SVG (inline in the HTML report, text
kept as text so it stays searchable and crisp) or PNG and SVG files (`--figures DIR`).

Many runs make grouped bars and dot plots unreadable, so past `MAX_SERIES_RUNS` runs those
become heat maps (runs x figures); their intervals are in the tables beside them. Margins are
set from the labels' lengths rather than by matplotlib's tight layout, which measures every
label twice and dominated the time of a 100-run report.
"""
from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from mathprobe.tasks.contract import Plot  # noqa: E402

MAX_SERIES_RUNS = 6            # more runs than this: bars and dots are drawn as heat maps
STACK_COLORS = ("#d62728", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f")
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Zen Hei", "AR PL UMing CN")
FONT = 8                       # points
CHAR_W = 0.62 * FONT / 72      # inches per character of a label, roughly (DejaVu Sans)

Figures = Mapping[str, Mapping[str, Mapping[str, Any]]]   # run_id -> stat key -> estimate dict


def _style() -> None:
    installed = {f.name for f in font_manager.fontManager.ttflist}
    plt.rcParams.update({
        "svg.fonttype": "none",             # text stays text in the SVG
        "svg.hashsalt": "mathprobe",        # stable ids: the same report twice is the same file
        "font.family": ["DejaVu Sans", *(f for f in CJK_FONTS if f in installed)],
        "font.size": FONT, "axes.spines.top": False, "axes.spines.right": False,
    })


_style()


def _value(figures: Figures, run: str, key: str) -> tuple[float, float, float] | None:
    e = figures.get(run, {}).get(key)
    if not e or e.get("value") is None:
        return None
    return e["value"], e["ci_low"], e["ci_high"]


def _row_height(n: int) -> float:
    return 0.4 if n <= 10 else 0.25 if n <= 30 else 0.16


def _short(label: str, n: int = 40) -> str:
    return label if len(label) <= n else label[:n - 1] + "…"


def _axis(label: str, plot: Plot) -> str:
    return f"{label} ({plot.unit})" if plot.unit else label


def _margins(fig: Figure, left: Sequence[str] = (), bottom: Sequence[str] = (),
             rotation: float = 0, right: float = 0.25, legend: bool = False,
             left_font: float = FONT, bottom_font: float = FONT) -> None:
    """Room for the y labels (`left`), the x labels (`bottom`, turned by `rotation` degrees),
    the title and a legend above the axes: inches turned into fractions of the figure."""
    w, h = fig.get_size_inches()
    left_in = 0.35 + CHAR_W * left_font / FONT * max((len(s) for s in left), default=2)
    longest = max((len(s) for s in bottom), default=0)
    bottom_in = 0.5 + CHAR_W * bottom_font / FONT * longest * np.sin(np.radians(rotation))
    top_in = 0.35 + (0.25 if legend else 0)
    fig.subplots_adjust(left=min(left_in / w, 0.6), right=1 - right / w,
                        bottom=min(bottom_in / h, 0.7), top=max(1 - top_in / h, 0.3))


def kind_of(plot: Plot, n_runs: int) -> str:
    """How `plot` is drawn for `n_runs` runs (bars and dots of many runs: a heat map)."""
    return "heatmap" if plot.kind in ("bars", "dots") and n_runs > MAX_SERIES_RUNS else plot.kind


def draw(plot: Plot, runs: Sequence[str], figures: Figures) -> Figure:
    kind = kind_of(plot, len(runs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # glyphs the installed fonts lack
        fig = {"stacked": _stacked, "bars": _bars, "heatmap": _heatmap, "curve": _curve,
               "dots": _dots}[kind](plot, list(runs), figures)
        fig.suptitle(plot.title, x=0.01, y=0.995, ha="left", va="top", fontsize=10)
    return fig


def _errorbars(ax, x, y, lo, hi, horizontal: bool, **kw) -> None:
    """One errorbar call for many points (lo, hi: the interval's ends)."""
    x, y, lo, hi = map(np.asarray, (x, y, lo, hi))
    if not len(x):
        return
    if horizontal:
        ax.errorbar(x, y, xerr=[x - lo, hi - x], fmt="none", **kw)
    else:
        ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="none", **kw)


def _stacked(plot: Plot, runs: list[str], figures: Figures) -> Figure:
    n = len(runs)
    fig = Figure(figsize=(9, 1.1 + _row_height(n) * n))
    ax = fig.add_subplot()
    y = np.arange(n)
    left = np.zeros(n)
    handles = []
    for k, (label, key) in enumerate(plot.series):
        vals = [_value(figures, r, key) for r in runs]
        v = np.array([x if x else (0.0, 0.0, 0.0) for x in vals]) * plot.scale
        color = STACK_COLORS[k % len(STACK_COLORS)]
        # one collection of rectangles per segment (a patch per bar is slow for 100 runs)
        ax.add_collection(PolyCollection(
            [[(x0, i - 0.325), (x0 + w, i - 0.325), (x0 + w, i + 0.325), (x0, i + 0.325)]
             for i, (x0, w) in enumerate(zip(left, v[:, 0]))], facecolors=color, linewidths=0))
        handles.append(Rectangle((0, 0), 1, 1, color=color, label=label))
        has = np.array([x is not None for x in vals])
        center = left + v[:, 0] / 2
        _errorbars(ax, center[has], y[has], (center - v[:, 0] + v[:, 1])[has],
                   (center - v[:, 0] + v[:, 2])[has], True, ecolor="black", elinewidth=0.7,
                   capsize=1.5)
        if n <= 20:
            for i in np.flatnonzero(has & (v[:, 0] >= 7)):
                ax.text(center[i], i + 0.3, f"{v[i, 0]:.1f}", ha="center", va="bottom",
                        fontsize=6.5, color="white")
        left = left + v[:, 0]
    ax.set_yticks(y, runs, fontsize=FONT if n <= 30 else 6)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, plot.scale)
    ax.set_xlabel(_axis(plot.xlabel or "share", plot))
    ax.legend(handles=handles, ncol=len(plot.series), loc="lower right", bbox_to_anchor=(1, 1.0),
              frameon=False, fontsize=FONT, borderaxespad=0.2)
    _margins(fig, left=runs, legend=True, left_font=FONT if n <= 30 else 6)
    return fig


def _bars(plot: Plot, runs: list[str], figures: Figures) -> Figure:
    groups = len(plot.series)
    labels = [label for label, _ in plot.series]
    rotated = groups > 6 or max(len(s) for s in labels) > 14
    fig = Figure(figsize=(min(max(5.0, 0.45 * groups * max(1, len(runs)) + 2), 14), 3.8))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(runs))
    for j, run in enumerate(runs):
        xs, vals = [], []
        for g, (_, key) in enumerate(plot.series):
            v = _value(figures, run, key)
            if v is not None:
                xs.append(g - 0.4 + width * (j + 0.5))
                vals.append(v)
        v = np.array(vals).reshape(-1, 3) * plot.scale
        ax.bar(xs, v[:, 0], width=width * 0.95, label=run, color=f"C{j}")
        _errorbars(ax, xs, v[:, 0], v[:, 1], v[:, 2], False, ecolor="black", elinewidth=0.7,
                   capsize=1.5)
    ax.set_xticks(range(groups), [_short(s, 28) for s in labels], rotation=45 if rotated else 0,
                  ha="right" if rotated else "center", rotation_mode="anchor")
    ax.set_ylabel(_axis(plot.ylabel, plot))
    if plot.unit == "%":
        ax.set_ylim(0, 100)
    if len(runs) > 1:
        ax.legend(frameon=False, fontsize=FONT, ncol=min(len(runs), 4), loc="lower right",
                  bbox_to_anchor=(1, 1.0), borderaxespad=0.2)
    _margins(fig, left=["100.0"], bottom=[_short(s, 28) for s in labels],
             rotation=45 if rotated else 0, legend=len(runs) > 1)
    return fig


def _heatmap(plot: Plot, runs: list[str], figures: Figures) -> Figure:
    data = np.full((len(runs), len(plot.series)), np.nan)
    for i, run in enumerate(runs):
        for j, (_, key) in enumerate(plot.series):
            v = _value(figures, run, key)
            if v is not None:
                data[i, j] = plot.scale * v[0]
    cols = len(plot.series)
    labels = [_short(label) for label, _ in plot.series]
    longest = max(len(s) for s in labels)
    fig = Figure(figsize=(min(3.5 + 0.17 * cols + CHAR_W * max(len(r) for r in runs), 20),
                          1.2 + _row_height(len(runs)) * len(runs)
                          + CHAR_W * (6 if cols > 30 else FONT) / FONT * longest))
    ax = fig.add_subplot()
    img = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap="viridis",
                    vmin=0 if plot.unit == "%" else None, vmax=100 if plot.unit == "%" else None,
                    interpolation="nearest")
    for i, run in enumerate(runs):
        for j, (_, key) in enumerate(plot.series):
            if key in plot.marks.get(run, ()):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red",
                                       linewidth=1.2))
    ax.set_xticks(range(cols), labels, rotation=90, fontsize=6 if cols > 30 else FONT)
    ax.set_yticks(range(len(runs)), runs, fontsize=6 if len(runs) > 30 else FONT)
    fig.colorbar(img, ax=ax, fraction=0.025, pad=0.01,
                 label=_axis(plot.xlabel or plot.ylabel or "value", plot))
    _margins(fig, left=runs, bottom=labels, rotation=90, right=0.9,
             left_font=6 if len(runs) > 30 else FONT, bottom_font=6 if cols > 30 else FONT)
    return fig


def _curve(plot: Plot, runs: list[str], figures: Figures) -> Figure:
    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    for j, run in enumerate(runs):
        pts = [(x, _value(figures, run, key)) for x, (_, key) in zip(plot.xs, plot.series)]
        pts = [(x, v) for x, v in pts if v is not None]
        if not pts:
            continue
        xs = [x for x, _ in pts]
        v = np.array([p for _, p in pts]) * plot.scale
        ax.plot(xs, v[:, 0], marker="o", markersize=3, label=run, color=f"C{j % 10}")
        ax.fill_between(xs, v[:, 1], v[:, 2], alpha=0.2, color=f"C{j % 10}", linewidth=0)
    ax.set_xlabel(plot.xlabel)
    ax.set_ylabel(_axis(plot.ylabel, plot))
    if plot.unit == "%":
        ax.set_ylim(0, 100)
    if 1 < len(runs) <= 12:
        ax.legend(frameon=False, fontsize=FONT)
    _margins(fig, left=["100"])
    return fig


def _dots(plot: Plot, runs: list[str], figures: Figures) -> Figure:
    rows = len(plot.series)
    labels = [_short(label, 70) for label, _ in plot.series]
    fig = Figure(figsize=(9, 1.2 + 0.16 * rows))
    ax = fig.add_subplot()
    marked_rows = set()
    for j, run in enumerate(runs):
        offset = (j - (len(runs) - 1) / 2) * 0.18
        ys, vals, edge = [], [], []
        for i, (_, key) in enumerate(plot.series):
            v = _value(figures, run, key)
            if v is None:
                continue
            ys.append(i + offset)
            vals.append(v)
            marked = key in plot.marks.get(run, ())
            edge.append("red" if marked else f"C{j}")
            if marked:
                marked_rows.add(i)
        v = np.array(vals).reshape(-1, 3) * plot.scale
        _errorbars(ax, v[:, 0], ys, v[:, 1], v[:, 2], True, ecolor=f"C{j}", elinewidth=0.7)
        ax.scatter(v[:, 0], ys, s=14, color=f"C{j}", edgecolors=edge, linewidths=1.0,
                   label=run, zorder=3)
    ax.set_yticks(range(rows), labels, fontsize=6)
    for i, tick in enumerate(ax.get_yticklabels()):
        if i in marked_rows:
            tick.set_color("red")
    ax.set_ylim(rows - 0.5, -0.5)
    if plot.unit == "%":
        ax.set_xlim(-2, 102)
    ax.set_xlabel(_axis(plot.xlabel or "value", plot))
    ax.grid(axis="x", linewidth=0.3)
    if len(runs) > 1:
        ax.legend(frameon=False, fontsize=FONT, loc="lower right", bbox_to_anchor=(1, 1.0),
                  ncol=min(len(runs), 4), borderaxespad=0.2)
    _margins(fig, left=labels, legend=len(runs) > 1, left_font=6)
    return fig


def svg(fig: Figure) -> str:
    """The figure as an <svg> element to inline (no XML prolog), scaling down with the page."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):].replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


def save(fig: Figure, stem: str) -> list[str]:
    """Write `stem`.png (150 dpi) and `stem`.svg; the paths written."""
    out = []
    for ext, kw in (("png", {"dpi": 150}), ("svg", {"metadata": {"Date": None}})):
        path = f"{stem}.{ext}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fig.savefig(path, format=ext, **kw)
        out.append(path)
    return out
