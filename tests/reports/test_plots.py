"""The report's plots read back as drawn (matplotlib's artists, rendered by Agg, in pixels):
every whisker spans exactly its figure's interval, stacked shares carry none and add up, bands
follow their intervals, heat-map cells have their values' colours, labels are whole and never
overlap, every colour is in a legend, no figure is thousands of pixels, and ConceptMath's
Chinese concepts draw without a missing glyph. The figures come from real stores filled through
the real import path (tests/reports/conftest.py, and a full ConceptMath EN+ZH run here)."""
from __future__ import annotations

import json
import logging
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Normalize, to_hex

from mathprobe import registry
from mathprobe.reports import compare, html, plot_kinds, plots
from mathprobe.reports.stats import method_name
from mathprobe.runs import import_official
from mathprobe.store import open_store

pytestmark = pytest.mark.timeout(600)

PX = 1.0                     # a pixel, at the figure's dpi
MAX_W, MAX_H = 1200, 1000    # CSS pixels (96 per inch) of any one figure


@pytest.fixture(scope="module")
def conceptmath_full(tmp_path_factory, data_dir):
    """Every ConceptMath problem, EN and ZH (4,011), answered right except every third."""
    tmp = tmp_path_factory.mktemp("cm-full")
    rows = []
    for system in ("element_en", "middle_en", "element_zh", "middle_zh"):
        for k, line in enumerate((data_dir / "conceptmath" / f"{system}.jsonl").read_text(
                encoding="utf-8").splitlines()):
            r = json.loads(line)
            rows.append({**r, "response": f"The answer is {r['answer'] if k % 3 else -98765}"})
    path = tmp / "cm-all.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    store = open_store(tmp / "cm.duckdb")
    import_official(store, registry.get("conceptmath"), data_dir, path, "cm-all")
    return store


RUNS = ["v1", "v1-perturbed", "cm-zs", "cm-fs", "cmm-a"]


@pytest.fixture(scope="module")
def small(results):
    return drawn(results.store, RUNS)


@pytest.fixture(scope="module")
def full(conceptmath_full):
    return drawn(conceptmath_full, ["cm-all"])


def drawn(store, runs):
    """(plot, figures of its runs, its drawn parts) of every plot of the report of `runs`."""
    out = []
    for b in compare.compare(store, runs).benchmarks:
        figures = {run: {k: e.as_dict() for k, e in f.items()} for run, f in b.figures.items()}
        for plot in b.plots:
            with_data = [r["run_id"] for r in b.runs
                         if {k for _, k in plot.series} & set(figures.get(r["run_id"], {}))]
            if with_data:
                parts = plots.draw(plot, with_data, figures)
                for part in parts:
                    FigureCanvasAgg(part.fig).draw()
                out.append((plot, figures, parts))
    return out


def by_key(items, key):
    return next(x for x in items if x[0].key == key)


def pixels(ax, x, y):
    return ax.transData.transform((x, y))


def whiskers(fig):
    """(axes, segment, (run, key), value axis) of every whisker drawn."""
    return [(ax, seg, k, c.mathprobe_axis) for ax in fig.axes for c in ax.collections
            if hasattr(c, "mathprobe_whiskers") for seg, k in zip(c.get_segments(),
                                                                  c.mathprobe_whiskers)]


def check_whiskers(plot, figures, fig) -> int:
    """Each whisker's ends are its interval's ends on the value axis, within a pixel, and inside
    its axes; the number checked."""
    found = whiskers(fig)
    for ax, seg, (run, key), axis in found:
        e = figures[run][key]
        lo, hi = plot.scale * e["ci_low"], plot.scale * e["ci_high"]
        (x0, y0), (x1, y1) = seg
        want = [(lo, y0), (hi, y1)] if axis == "x" else [(x0, lo), (x1, hi)]
        box = ax.get_window_extent()
        for end, expected in zip(seg, want):
            at = pixels(ax, *end)
            assert np.hypot(*(at - pixels(ax, *expected))) <= PX, (plot.key, run, key)
            assert box.x0 - PX <= at[0] <= box.x1 + PX and box.y0 - PX <= at[1] <= box.y1 + PX, \
                (plot.key, run, key, "whisker outside its axes")
    return len(found)


def test_whiskers_span_their_intervals(small, full):
    plots_ = small + full
    checked = {}
    for plot, figures, parts in plots_:
        if plot.kind in ("bars", "dots"):
            checked[plot.key] = sum(check_whiskers(plot, figures, p.fig) for p in parts)
    # every figure of the plot has its whisker: S1-S3 and the 12 categories for two runs, ...
    assert checked["wemath-table1"] == 2 * 15
    assert checked["conceptmath-concepts-l3"] == 214        # every level-3 concept, EN and ZH
    assert checked["cmmath-subjects"] > 10
    # a dot sits at its value, on its whisker
    plot, figures, parts = by_key(plots_, "conceptmath-concepts-l2")
    for part in parts:
        for ax in part.fig.axes:
            dots = {tuple(np.round(p, 6)) for c in ax.collections if c.get_offsets().size
                    and not hasattr(c, "mathprobe_whiskers") for p in c.get_offsets()}
            for a, seg, (run, key), _ in whiskers(part.fig):
                if a is ax:
                    x = round(plot.scale * figures[run][key]["value"], 6)
                    assert (x, round(seg[0][1], 6)) in dots


def test_stacked_shares_add_up_and_carry_no_whiskers(small):
    plot, figures, (part,) = by_key(small, "wemath-4d-strict")
    (ax,) = part.fig.axes
    assert not whiskers(part.fig) and not ax.lines       # no interval drawn where it misleads
    # each segment as drawn: (run, key, left, right) in data coordinates
    segments = [(run, key, path.vertices[:, 0].min(), path.vertices[:, 0].max(),
                 path.vertices[:, 1].mean())
                for c in ax.collections if hasattr(c, "mathprobe_segments")
                for path, (run, key) in zip(c.get_paths(), c.mathprobe_segments)]
    for run in ("v1", "v1-perturbed"):
        mine = sorted((s for s in segments if s[0] == run), key=lambda s: s[2])
        assert [s[1] for s in mine] == [k for _, k in plot.series]
        right = 0.0
        for _, key, x0, x1, y in mine:
            assert abs(pixels(ax, x0, y)[0] - pixels(ax, right, y)[0]) <= PX
            width = plot.scale * figures[run][key]["value"]
            assert abs(pixels(ax, x1, y)[0] - pixels(ax, right + width, y)[0]) <= PX
            right += width
        assert abs(right - 100) < 1e-6                     # shares of one whole
        assert pixels(ax, right, 0)[0] <= ax.get_window_extent().x1 + PX
    # each share's value and interval are in its run's hover title in the SVG
    e = figures["v1"]["ik"]
    svg = plots.svg(part.fig)
    titles = re.findall(r"<title>([^<]*)</title>", svg)
    assert any(t.startswith(f"IK: {100 * e['value']:.1f}% [{100 * e['ci_low']:.1f}, "
                            f"{100 * e['ci_high']:.1f}] n={e['n']} "
                            f"({method_name(e['ci_method'])}) (run v1)")
               for t in titles)


def test_curve_bands_follow_their_intervals(small):
    plot, figures, (part,) = by_key(small, "cmmath-ssr")
    (ax,) = [a for a in part.fig.axes]
    (band,) = [c for c in ax.collections if getattr(c, "mathprobe_band", None) == "cmm-a"]
    vertices = band.get_paths()[0].vertices
    for x, (_, key) in zip(plot.xs, plot.series):
        e = figures["cmm-a"][key]
        ys = vertices[np.isclose(vertices[:, 0], x), 1]
        for got, want in ((ys.min(), e["ci_low"]), (ys.max(), e["ci_high"])):
            assert abs(pixels(ax, x, got)[1] - pixels(ax, x, plot.scale * want)[1]) <= PX


def test_heat_map_cells_have_their_values_colours_and_no_data_is_in_the_legend(results):
    plot, figures, parts = by_key(drawn(results.store, ["v1", "v1-sub"]), "wemath-concepts")
    assert len(parts) == 1                                  # 67 leaves: two panels, one figure
    # a run that lacks five concepts (as a --limit run does): drawn 'no data'
    lacking = {k for _, k in plot.series[:5]}
    figures = {**figures, "v1-sub": {k: v for k, v in figures["v1-sub"].items()
                                     if k not in lacking}}
    (part,) = plots.draw(plot, ["v1", "v1-sub"], figures)
    fig = part.fig
    FigureCanvasAgg(fig).draw()
    seen_no_data, cells = 0, 0
    for ax in fig.axes:
        for mesh in [c for c in ax.collections if hasattr(c, "mathprobe_cells")]:
            colours = mesh.get_facecolors()
            flat = [k for row in mesh.mathprobe_cells for k in row]
            assert len(colours) == len(flat)
            norm = Normalize(0, 100)
            for colour, (run, key) in zip(colours, flat):
                if key is None:
                    continue                                # a heading row (covered white)
                e = figures.get(run, {}).get(key)
                if e is None:
                    assert to_hex(colour) == plot_kinds.NO_DATA
                    seen_no_data += 1
                else:
                    want = mesh.get_cmap()(norm(100 * e["value"]))
                    assert np.allclose(colour, want, atol=1 / 255)
                    cells += 1
    assert cells == 2 * 67 - 5 and seen_no_data == 5
    (legend,) = fig.legends
    labels = {t.get_text(): to_hex(h.get_facecolor())
              for t, h in zip(legend.get_texts(), legend.legend_handles)}
    assert labels["no data"] == plot_kinds.NO_DATA
    # the category headings separate the blocks
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert "Angles and Length" in ticks and "Route Map" in ticks


def test_labels_are_whole_never_overlap_and_every_colour_is_in_a_legend(small, full):
    plots_ = small + full
    kinds = set()
    for plot, figures, parts in plots_:
        kinds.add("heatmap" if parts[0].heatmap else plot.kind)
        names = {label for label, _ in plot.series} | {h for h, _ in plot.groups}
        for part in parts:
            fig = part.fig
            renderer = fig.canvas.get_renderer()
            titles = getattr(fig, "mathprobe_titles", {})
            width, height = fig.bbox.width, fig.bbox.height
            texts = [fig._suptitle, *(lg for lg in fig.legends)]
            for ax in fig.axes:
                for axis in (ax.xaxis, ax.yaxis):
                    shown = _drawn_labels(axis)
                    boxes = [t.get_window_extent(renderer) for t in shown]
                    for i, a in enumerate(boxes):
                        assert a.x0 >= -PX and a.y0 >= -PX and a.x1 <= width + PX \
                            and a.y1 <= height + PX, (part.key, shown[i].get_text())
                        for b in boxes[i + 1:]:
                            overlap = (min(a.x1, b.x1) - max(a.x0, b.x0),
                                       min(a.y1, b.y1) - max(a.y0, b.y0))
                            assert min(overlap) <= PX, (part.key, shown[i].get_text())
                    for t in shown:
                        text = t.get_text()
                        if text.removesuffix(" (cont.)") in names or _joined(text) in names:
                            continue
                        if text.endswith("…"):              # abbreviated: the full name hovers
                            full = titles[t.get_gid()]
                            assert any(full.startswith(n) for n in names), (part.key, text)
                            continue
                        assert _numeric(text) or text in {r for r in figures}, (part.key, text)
            # the title and the legend inside the figure, apart
            boxes = [t.get_window_extent(renderer) for t in texts]
            for box in boxes:
                assert box.x0 >= -PX and box.x1 <= width + PX and box.y1 <= height + PX, part.key
            if len(boxes) == 2:
                a, b = boxes
                assert min(min(a.x1, b.x1) - max(a.x0, b.x0),
                           min(a.y1, b.y1) - max(a.y0, b.y0)) <= PX, (part.key, "title/legend")
            _every_colour_in_a_legend(fig, part.key)
    assert {"stacked", "bars", "heatmap", "curve", "dots"} <= kinds


def _drawn_labels(axis):
    """The tick labels an axis draws: those of ticks inside its view interval."""
    lo, hi = sorted(axis.get_view_interval())
    return [t for t, at in zip(axis.get_ticklabels(), axis.get_ticklocs())
            if t.get_visible() and t.get_text() and lo - 1e-9 <= at <= hi + 1e-9]


def _joined(text: str) -> str:
    """A wrapped label as given: lines joined by a space, or by nothing after a '/'."""
    return re.sub(r"([/-])\n", r"\1", text).replace("\n", " ")


def _numeric(text: str) -> bool:
    return re.fullmatch(r"[−-]?\d+(\.\d+)?", text) is not None


def _every_colour_in_a_legend(fig, key: str) -> None:
    legend = {to_hex(c) for lg in fig.legends for h in lg.legend_handles
              for c in ([h.get_facecolor()] if hasattr(h, "get_facecolor") else [])
              + ([h.get_color()] if hasattr(h, "get_color") else []) if c is not None
              and not (isinstance(c, str) and c == "none")}
    used = set()
    for ax in fig.axes:
        if hasattr(ax, "_colorbar"):                 # a heat map's scale: its own legend
            continue
        used |= {to_hex(p.get_facecolor()) for p in ax.patches
                 if p.get_fill() and p.get_facecolor()[3] > 0}
        used |= {to_hex(c) for coll in ax.collections if hasattr(coll, "get_offsets")
                 and coll.get_offsets().size and not hasattr(coll, "mathprobe_cells")
                 for c in coll.get_facecolors()}
        used |= {to_hex(line.get_color()) for line in ax.lines
                 if line.get_color() not in ("#555555",)}
    used -= {"#ffffff"}
    assert used <= legend, (key, used - legend)


def test_no_figure_is_thousands_of_pixels(small, full):
    plots_ = small + full
    sizes = {p.key: (p.fig.get_size_inches() * 96).round() for _, _, parts in plots_
             for p in parts}
    for key, (w, h) in sizes.items():
        assert w <= MAX_W and h <= MAX_H, (key, w, h)
    # the 214 level-3 concepts: split into parts (one figure was 5,316 px tall)
    assert sum(k.startswith("conceptmath-concepts-l3") for k in sizes) >= 2
    assert math.isclose(len([k for k in sizes if k == "wemath-concepts"]), 1)


def test_chinese_concepts_draw_with_no_missing_glyph(conceptmath_full, full, tmp_path, caplog):
    """The HTML report and the --figures PNGs of a ConceptMath EN+ZH run: not one 'Glyph ...
    missing from font(s)' warning (there were 262), and the Chinese labels are drawn."""
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING):
        warnings.simplefilter("always")
        info = html.write(conceptmath_full, ["cm-all"], tmp_path / "report.html",
                          figures_dir=tmp_path / "figures")
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    missing += [r.getMessage() for r in caplog.records if "findfont" in r.getMessage()
                or "missing from font" in r.getMessage()]
    assert missing == []
    assert any(p.endswith(".png") for p in info["figure_files"])
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "应用/经典问题" in page                              # a ZH concept path, as text
    assert "@font-face" in page and "data:font/otf;base64," in page   # its glyphs travel along
    zh = [t for _, _, parts in full for p in parts
          for ax in p.fig.axes for t in ax.get_yticklabels() if re.search("[\u4e00-\u9fff]",
                                                                          t.get_text())]
    assert len(zh) > 100
    assert Path(info["path"]).is_file()
