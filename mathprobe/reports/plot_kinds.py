"""The kinds of plot (mathprobe.contract.Plot.kind), each a function (plot, runs, figures) -> the
figures it takes. Geometry a test can read back: every whisker is a segment of a LineCollection
that records, in `mathprobe_whiskers`, the (run, stat key) of each segment, and `mathprobe_axis`
the axis its value is read on; a curve's band records its run in `mathprobe_band`; a stacked
series' segments (a PolyCollection) their (run, key) in `mathprobe_segments`. The rules they
follow: mathprobe.reports.plots."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from mathprobe.contract import Plot
from mathprobe.reports import fonts
from mathprobe.reports.plot_labels import (
    CHAR_W,
    FONT,
    PANELS,
    ROW_FONT,
    ROWS_PER_PANEL,
    Figures,
    describe,
    hover,
    legend,
    text_width,
    value,
    wrap,
)

STACK_COLORS = ("#d62728", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f")
NO_DATA = "#d4d4d4"            # a heat map cell without a figure (in the legend)
MARK = "#d62728"               # marked figures (e.g. unmastered concepts)
TOP_IN, BOTTOM_IN = 0.62, 0.5  # inches above the axes (title, legend) and below (axis label)


def run_color(j: int) -> str:
    return f"C{j % 10}"


def _mark(artist: Artist, **marks: Any) -> None:
    """Record on an artist what it draws (its `mathprobe_<name>` attributes, which matplotlib
    ignores): the plot tests read them back to check each mark against its figure."""
    for name, mark in marks.items():
        setattr(artist, f"mathprobe_{name}", mark)


def _whiskers(ax: Axes, segments: list, keys: list, axis: str, color, caps: float = 0) -> None:
    """Whiskers as drawn segments, recorded (run, key) by segment; caps of half-width `caps`."""
    if not segments:
        return
    lines = LineCollection(segments, colors=color, linewidths=0.8, zorder=2.5)
    _mark(lines, whiskers=keys, axis=axis)
    ax.add_collection(lines)
    if caps:
        ends = [((p[0] - caps, p[1]), (p[0] + caps, p[1])) if axis == "y"
                else ((p[0], p[1] - caps), (p[0], p[1] + caps)) for s in segments for p in s]
        ax.add_collection(LineCollection(ends, colors=color, linewidths=0.8, zorder=2.5))


# --- rows: the heat map's and the dot plot's series down the page, in headed blocks ---------

@dataclass
class Row:
    label: str             # as given (a heading's text for a heading)
    key: str | None        # None: a heading row
    full: str              # the full name (hover)


def rows_of(plot: Plot) -> list[Row]:
    rows, at = [], 0
    for heading, count in plot.groups:
        rows.append(Row(heading, None, heading))
        rows += [Row(lb, k, plot.full_names.get(lb, lb)) for lb, k in plot.series[at:at + count]]
        at += count
    rows += [Row(lb, k, plot.full_names.get(lb, lb)) for lb, k in plot.series[at:]]
    return rows


def panels(rows: list[Row], per: int = ROWS_PER_PANEL) -> list[list[Row]]:
    """`rows` cut into balanced panels of at most `per` rows; a block cut in two is headed
    again ('... (cont.)'), and no panel ends on a heading."""
    if len(rows) <= per:
        return [rows]
    size = min(per, math.ceil(len(rows) / math.ceil(len(rows) / per)) + 3)   # room for (cont.)
    out: list[list[Row]] = [[]]
    heading = None
    for r in rows:
        cur = out[-1]
        if len(cur) >= size or (r.key is None and len(cur) >= size - 1):
            cur = []
            out.append(cur)
            if r.key is not None and heading:
                cur.append(Row(f"{heading} (cont.)", None, heading))
        if r.key is None:
            heading = r.label
        cur.append(r)
    return out


@dataclass
class Panel:
    """One panel's rows as laid out: wrapped labels, and each row's centre and edges in row
    units (a one-line row is 1 unit, `UNIT` inches; a two-line row 1.75)."""
    rows: list[Row]
    labels: list[tuple[str, bool]]          # (text, abbreviated)
    centers: np.ndarray
    edges: np.ndarray

    @property
    def units(self) -> float:
        return float(self.edges[-1])


UNIT = 0.15            # inches per one-line row


def _layout(plot: Plot, per_figure: int) -> list[tuple[list[Panel], float]]:
    """Per figure: its panels and the width (inches) of their row labels."""
    out, cut = [], []
    for rows in panels(rows_of(plot)):
        labels = [wrap(r.label) for r in rows]
        heights = np.array([1 + 0.75 * t.count("\n") for t, _ in labels])
        edges = np.concatenate([[0.0], np.cumsum(heights)])
        cut.append(Panel(rows, labels, (edges[:-1] + edges[1:]) / 2, edges))
    for k in range(0, len(cut), per_figure):
        part = cut[k:k + per_figure]
        widest = max(text_width(line, ROW_FONT) for p in part for t, _ in p.labels
                     for line in t.split("\n"))
        out.append((part, widest + 0.25))
    return out


def _row_axes(fig: Figure, panel: Panel, left_in: float, width_in: float, plot: Plot,
              figures: Figures, runs: list[str]) -> Axes:
    """An axes for one panel, `left_in` inches from the figure's left, rows top-aligned, its
    row labels set (headings bold, separated by a line; each label's hover title: its full name
    and its figures)."""
    w, h = fig.get_size_inches()
    height = UNIT * panel.units
    ax = fig.add_axes((left_in / w, 1 - (TOP_IN + height) / h, width_in / w, height / h))
    ax.set_ylim(panel.units, 0)
    ax.set_yticks(panel.centers, [t for t, _ in panel.labels], fontsize=ROW_FONT)
    marked = {k for ks in plot.marks.values() for k in ks}
    ticks = ax.yaxis.get_major_ticks()
    for i, (r, tick) in enumerate(zip(panel.rows, ax.get_yticklabels())):
        if r.key is None:
            if not any(fonts.is_cjk(c) for c in r.label):     # the CJK face has no bold
                tick.set_fontfamily(fonts.LATIN)
                tick.set_fontweight("bold")
            ticks[i].tick1line.set_visible(False)
            if i:
                ax.axhline(panel.edges[i], color="#555555", linewidth=0.6, zorder=3)
            continue
        if r.key in marked:
            tick.set_color(MARK)
        hover(fig, tick, "; ".join([r.full] + [describe(plot, figures, run, r.key, run)
                                               for run in runs]))
    return ax


# --- the kinds ------------------------------------------------------------------------------

def stacked(plot: Plot, runs: list[str], figures: Figures) -> list[Figure]:
    """One bar per run, the series stacked as shares of one whole. No whiskers: a segment's
    interval is not where its value is read; the run's hover title gives values and
    intervals."""
    n = len(runs)
    small = n > 30
    row_h = 0.4 if n <= 10 else 0.25 if n <= 30 else 0.16
    label_w = max(text_width(r, 6 if small else FONT) for r in runs) + 0.3
    fig = Figure(figsize=(9, TOP_IN + BOTTOM_IN + row_h * n))
    w, h = fig.get_size_inches()
    ax = fig.add_axes((label_w / w, BOTTOM_IN / h, 1 - (label_w + 0.3) / w, row_h * n / h))
    handles = []
    left = np.zeros(n)
    for k, (label, key) in enumerate(plot.series):
        color = STACK_COLORS[k % len(STACK_COLORS)]
        handles.append(Patch(facecolor=color, label=label))
        boxes, keys = [], []
        for i, run in enumerate(runs):
            v = value(figures, run, key)
            if v is None:
                continue
            width = plot.scale * v[0]
            boxes.append([(left[i], i - 0.325), (left[i] + width, i - 0.325),
                          (left[i] + width, i + 0.325), (left[i], i + 0.325)])
            keys.append((run, key))
            if n <= 20 and width >= 0.06 * plot.scale:
                ax.text(left[i] + width / 2, i, f"{width:.1f}", ha="center", va="center",
                        fontsize=6.5, color="white")
            left[i] += width
        # one collection per series (a patch per segment is slow for 100 runs)
        segments = PolyCollection(boxes, facecolors=color, linewidths=0)
        _mark(segments, segments=keys)
        ax.add_collection(segments)
    ax.set_yticks(range(n), runs, fontsize=6 if small else FONT)
    for run, tick in zip(runs, ax.get_yticklabels()):     # the run's shares and intervals
        hover(fig, tick, "; ".join(describe(plot, figures, run, key, label)
                                   for label, key in plot.series))
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, plot.scale)
    ax.set_xlabel(f"{plot.xlabel or 'share'} ({plot.unit})" if plot.unit else plot.xlabel)
    legend(fig, handles)
    return [fig]


def bars(plot: Plot, runs: list[str], figures: Figures) -> list[Figure]:
    """Groups = series, one bar per run, each with its whisker; labels wrapped to the group."""
    groups, nr = len(plot.series), max(1, len(runs))
    group_w = max(0.75, 0.2 * nr + 0.3)
    width_in = min(max(4.5, groups * group_w + 1.0), 13.0)
    group_w = (width_in - 1.0) / groups
    chars = max(5, int(group_w / (CHAR_W * FONT)))
    labels = [wrap(lb, chars, 3) for lb, _ in plot.series]
    lines = max(t.count("\n") + 1 for t, _ in labels)
    fig = Figure(figsize=(width_in, 3.2 + 0.15 * lines))
    w, h = fig.get_size_inches()
    bottom = BOTTOM_IN - 0.15 + 0.15 * lines
    ax = fig.add_axes((0.8 / w, bottom / h, (w - 1.0) / w, (h - bottom - TOP_IN) / h))
    bar_w = 0.8 / nr
    handles = []
    for j, run in enumerate(runs):
        xs, vals, keys, names = [], [], [], []
        for g, (label, key) in enumerate(plot.series):
            v = value(figures, run, key)
            if v is not None:
                xs.append(g - 0.4 + bar_w * (j + 0.5))
                vals.append([plot.scale * x for x in v])
                keys.append((run, key))
                names.append(label)
        color = run_color(j)
        handles.append(Patch(facecolor=color, label=run))
        if not xs:
            continue
        container = ax.bar(xs, [v[0] for v in vals], width=bar_w * 0.92, color=color)
        for rect, (_, key), label in zip(container, keys, names):
            hover(fig, rect, describe(plot, figures, run, key, plot.full_names.get(label, label)))
        _whiskers(ax, [[(x, v[1]), (x, v[2])] for x, v in zip(xs, vals)], keys, "y", "black",
                  caps=min(0.08, bar_w / 4))
    ax.set_xticks(range(groups), [t for t, _ in labels], fontsize=FONT)
    ax.set_xlim(-0.5, groups - 0.5)
    for tick, (label, _), (_, cut) in zip(ax.get_xticklabels(), plot.series, labels):
        if cut or label in plot.full_names:
            hover(fig, tick, plot.full_names.get(label, label))
    ax.set_ylabel(f"{plot.ylabel} ({plot.unit})" if plot.unit else plot.ylabel)
    if plot.unit == "%":
        ax.set_ylim(0, 100)
    legend(fig, handles)
    return [fig]


def curve(plot: Plot, runs: list[str], figures: Figures) -> list[Figure]:
    """x = plot.xs, a line per run and its interval as a band."""
    fig = Figure(figsize=(7, 3.6))
    w, h = fig.get_size_inches()
    ax = fig.add_axes((0.75 / w, BOTTOM_IN / h, (w - 1.0) / w, (h - BOTTOM_IN - TOP_IN) / h))
    handles: list[Artist] = []
    for j, run in enumerate(runs):
        pts = [(x, value(figures, run, key)) for x, (_, key) in zip(plot.xs, plot.series)]
        pts = [(x, v) for x, v in pts if v is not None]
        if not pts:
            continue
        xs = [x for x, _ in pts]
        v = np.array([p for _, p in pts]) * plot.scale
        color = run_color(j)
        (line,) = ax.plot(xs, v[:, 0], marker="o", markersize=3, color=color)
        band = ax.fill_between(xs, v[:, 1], v[:, 2], alpha=0.2, color=color, linewidth=0)
        _mark(band, band=run)
        hover(fig, line, "; ".join(describe(plot, figures, run, key, f"{plot.xlabel} = {lb}")
                                   for lb, key in plot.series))
        handles.append(Line2D([], [], color=color, marker="o", markersize=3, label=run))
    ax.set_xlabel(plot.xlabel)
    ax.set_ylabel(f"{plot.ylabel} ({plot.unit})" if plot.unit else plot.ylabel)
    if plot.unit == "%":
        ax.set_ylim(0, 100)
    handles.append(Patch(facecolor="#888888", alpha=0.3, label="95% interval"))
    legend(fig, handles)
    return [fig]


def dots(plot: Plot, runs: list[str], figures: Figures) -> list[Figure]:
    """The series down the page (headed blocks, panels side by side), a dot per run with its
    whisker; marked figures (plot.marks) ringed and labelled red."""
    out = []
    plot_w = 2.6
    step = min(0.22, 0.75 / max(1, len(runs)))
    for part, label_w in _layout(plot, PANELS):
        fig = Figure(figsize=(len(part) * (label_w + plot_w + 0.2) + 0.2,
                              TOP_IN + BOTTOM_IN + UNIT * max(p.units for p in part)))
        for c, panel in enumerate(part):
            ax = _row_axes(fig, panel, 0.1 + c * (label_w + plot_w + 0.2) + label_w, plot_w,
                           plot, figures, runs)
            for j, run in enumerate(runs):
                ys, vals, keys, edges = [], [], [], []
                for i, r in enumerate(panel.rows):
                    v = value(figures, run, r.key) if r.key else None
                    if v is None:
                        continue
                    ys.append(panel.centers[i] + (j - (len(runs) - 1) / 2) * step)
                    vals.append([plot.scale * x for x in v])
                    keys.append((run, r.key))
                    edges.append(MARK if r.key in plot.marks.get(run, ()) else run_color(j))
                if not ys:
                    continue
                _whiskers(ax, [[(v[1], y), (v[2], y)] for v, y in zip(vals, ys)], keys, "x",
                          run_color(j))
                ax.scatter([v[0] for v in vals], ys, s=14, color=run_color(j), edgecolors=edges,
                           linewidths=1.0, zorder=3)
            if plot.unit == "%":
                ax.set_xlim(-2, 102)
            ax.set_xlabel(f"{plot.xlabel or 'value'} ({plot.unit})" if plot.unit
                          else plot.xlabel or "value")
            ax.grid(axis="x", linewidth=0.3)
        handles = [Line2D([], [], color=run_color(j), marker="o", markersize=4, linewidth=0.8,
                          label=r) for j, r in enumerate(runs)]
        if any(plot.marks.values()):
            handles.append(Line2D([], [], color="none", marker="o", markersize=4,
                                  markerfacecolor="white", markeredgecolor=MARK,
                                  label=plot.marked))
        legend(fig, handles)
        out.append(fig)
    return out


def heatmap(plot: Plot, runs: list[str], figures: Figures) -> list[Figure]:
    """The series down the page (headed blocks, panels side by side), a column per run, each
    cell coloured by its value (written in it for up to 12 runs); grey: no data."""
    import matplotlib

    cmap = matplotlib.colormaps["viridis"].with_extremes(bad=NO_DATA)
    values = [plot.scale * v[0] for r in runs for _, k in plot.series
              for v in [value(figures, r, k)] if v is not None]
    vmin, vmax = (0, 100) if plot.unit == "%" else (min(values, default=0), max(values, default=1))
    col_w = 0.42 if len(runs) <= 12 else 0.14
    run_w = max(text_width(r, FONT) for r in runs)
    rotate = run_w > col_w
    bottom = 0.25 + (run_w if rotate else 0.2)
    out = []
    per_figure = PANELS if len(runs) <= 12 else 1
    for part, label_w in _layout(plot, per_figure):
        grid_w = min(col_w * len(runs), 11.0)
        fig = Figure(figsize=(len(part) * (label_w + grid_w + 0.2) + 1.0,
                              TOP_IN + bottom + UNIT * max(p.units for p in part)))
        img = None
        for c, panel in enumerate(part):
            ax = _row_axes(fig, panel, 0.1 + c * (label_w + grid_w + 0.2) + label_w, grid_w,
                           plot, figures, runs)
            data = np.full((len(panel.rows), len(runs)), np.nan)
            for i, r in enumerate(panel.rows):
                for j, run in enumerate(runs):
                    v = value(figures, run, r.key) if r.key else None
                    if v is not None:
                        data[i, j] = plot.scale * v[0]
            img = ax.pcolormesh(np.arange(len(runs) + 1) - 0.5, panel.edges,
                                np.ma.masked_invalid(data), cmap=cmap, vmin=vmin, vmax=vmax,
                                rasterized=data.size > 1000)   # one image, not a path a cell
            _mark(img, cells=[[(run, r.key) for run in runs] for r in panel.rows])
            ax.set_xlim(-0.5, len(runs) - 0.5)
            ax.set_ylim(panel.units, 0)
            for i, r in enumerate(panel.rows):
                top, tall = panel.edges[i], panel.edges[i + 1] - panel.edges[i]
                if r.key is None:           # a heading row: blank, not 'no data'
                    ax.add_patch(Rectangle((-0.5, top), len(runs), tall, facecolor="white",
                                           edgecolor="none", zorder=2))
                    continue
                for j, run in enumerate(runs):
                    if r.key in plot.marks.get(run, ()):
                        ax.add_patch(Rectangle((j - 0.45, top + 0.05), 0.9, tall - 0.1,
                                               fill=False, edgecolor=MARK, linewidth=1.2,
                                               zorder=3))
                    if len(runs) <= 12 and not np.isnan(data[i, j]):
                        x = data[i, j]
                        light = (x - vmin) / ((vmax - vmin) or 1) > 0.6
                        ax.text(j, panel.centers[i], f"{x:.0f}" if plot.unit == "%"
                                else f"{x:.2g}", ha="center", va="center", fontsize=6,
                                color="black" if light else "white", zorder=3)
            ax.set_xticks(range(len(runs)), runs, rotation=90 if rotate else 0, fontsize=FONT)
            ax.tick_params(axis="x", length=0)
            for side in ("left", "bottom"):
                ax.spines[side].set_visible(False)
        assert img is not None         # every part of the layout has a panel
        w, h = fig.get_size_inches()
        cax = fig.add_axes((1 - 0.75 / w, bottom / h, 0.12 / w, (h - bottom - TOP_IN) / h))
        fig.colorbar(img, cax=cax, label=f"{plot.xlabel or plot.ylabel or 'value'}"
                     + (f" ({plot.unit})" if plot.unit else ""))
        handles = [Patch(facecolor=NO_DATA, label="no data")]
        if any(plot.marks.values()):
            handles.append(Patch(facecolor="white", edgecolor=MARK, label=plot.marked))
        legend(fig, handles)
        out.append(fig)
    return out


KINDS = {"stacked": stacked, "bars": bars, "heatmap": heatmap, "curve": curve, "dots": dots}
