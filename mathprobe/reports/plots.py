"""The report's plots, drawn with matplotlib (Agg) from a benchmark's `Plot` specs and figures
already computed: every value with its interval. Output is SVG (inline in the HTML report, text
kept as text so it stays searchable and crisp) or PNG and SVG files (`--figures DIR`).

What a reader sees must be right by construction, and tests read the drawn geometry back:
- a whisker spans exactly its interval on the value axis (`mathprobe.reports.plot_kinds` draws
  them as segments it records); stacked shares carry none (a segment's interval is not where
  its value is read): a run's shares with their intervals are its label's hover title;
- labels are whole: wrapped, or abbreviated with the full name as the hover title;
- every colour drawn is in a legend ('no data' and marked figures included);
- many rows (67 WE-MATH leaves, 214 ConceptMath level-3 concepts) are laid out in headed
  blocks, two panels side by side, and past `ROWS_PER_PANEL` x `PANELS` rows split into parts,
  so no figure is thousands of pixels tall or wide.
Past `MAX_SERIES_RUNS` runs bars and dots become heat maps (rows x runs); their intervals are in
the tables. Margins are set from the labels' lengths rather than by matplotlib's tight layout,
which measures every label twice and dominated the time of a 100-run report.
"""
from __future__ import annotations

import html as _html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from mathprobe.contract import Plot  # noqa: E402
from mathprobe.reports import fonts, plot_kinds  # noqa: E402
from mathprobe.reports.plot_labels import FONT, MAX_SERIES_RUNS, Figures, text_width  # noqa: E402,F401


def _style() -> None:
    plt.rcParams.update({
        "svg.fonttype": "none",             # text stays text in the SVG
        "svg.hashsalt": "mathprobe",        # stable ids: the same report twice is the same file
        "font.family": fonts.family(),      # Latin, then CJK glyph by glyph
        "font.size": FONT, "axes.spines.top": False, "axes.spines.right": False,
    })


_style()


@dataclass
class Drawn:
    """One figure of a plot: the whole plot, or one part of a long one."""
    key: str               # the plot's key, with -part<k> when it is split
    title: str
    fig: Figure
    heatmap: bool


def kind_of(plot: Plot, n_runs: int) -> str:
    """How `plot` is drawn for `n_runs` runs (bars and dots of many runs: a heat map)."""
    return "heatmap" if plot.kind in ("bars", "dots") and n_runs > MAX_SERIES_RUNS else plot.kind


def draw(plot: Plot, runs: Sequence[str], figures: Figures) -> list[Drawn]:
    """The figures of `plot` for `runs` (one, or the parts of a long plot)."""
    kind = kind_of(plot, len(runs))
    figs = plot_kinds.KINDS[kind](plot, list(runs), figures)
    out = []
    for k, fig in enumerate(figs):
        title = plot.title if len(figs) == 1 else f"{plot.title} (part {k + 1} of {len(figs)})"
        # one line across the figure: a long title in a narrow figure gets a smaller font
        width = fig.get_size_inches()[0] - 0.2
        size = max(6.5, min(10.0, 10 * width / max(text_width(title, 10), 0.01)))
        # its top a little below the figure's: at the very edge the glyphs' tops were cut
        fig.suptitle(title, x=0.01, y=1 - 0.04 / fig.get_size_inches()[1], ha="left",
                     va="top", fontsize=size)
        out.append(Drawn(plot.key if len(figs) == 1 else f"{plot.key}-part{k + 1}", title, fig,
                         kind == "heatmap"))
    return out


def svg(fig: Figure, prefix: str = "") -> str:
    """The figure as an <svg> element to inline (no XML prolog), scaling down with the page,
    with its hover titles; every id in it (and every reference to one) starts with `prefix`.
    matplotlib numbers each figure's ids from 1 ('axes_1', 'patch_2', its clip paths by a
    fixed salt), so inline plots of one page share ids (81-322 a report): invalid HTML, and a
    clip path or gradient can bind to another plot's. A report gives each plot its own."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    titles = getattr(fig, "mathprobe_titles", {})
    if titles:
        text = re.sub(r'<g id="(mp\d+)">',
                      lambda m: f'<g id="{m[1]}"><title>{_html.escape(titles[m[1]])}</title>'
                      if m[1] in titles else m[0], text)
    text = text[text.index("<svg"):]
    if prefix:
        ids = set(re.findall(r'\sid="([^"]+)"', text))
        text = re.sub(r'(\sid=")([^"]+)"', lambda m: f'{m[1]}{prefix}{m[2]}"', text)
        text = re.sub(r'url\(#([^)]+)\)',
                      lambda m: f"url(#{prefix}{m[1]})" if m[1] in ids else m[0], text)
        text = re.sub(r'((?:xlink:)?href)="#([^"]+)"',
                      lambda m: f'{m[1]}="#{prefix}{m[2]}"' if m[2] in ids else m[0], text)
    return text.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


def save(fig: Figure, stem: str) -> list[str]:
    """Write `stem`.png (150 dpi) and `stem`.svg; the paths written."""
    out = []
    for ext, kw in (("png", {"dpi": 150}), ("svg", {"metadata": {"Date": None}})):
        path = f"{stem}.{ext}"
        fig.savefig(path, format=ext, **kw)
        out.append(path)
    return out
