"""A benchmark's figures as data: what every report draws, declared once.

A figure is a `Stat` (its key, its label, the cells of the figure-units view it is computed
from, its rule: a ratio, a macro mean, a share above alpha, and how it is formatted); a `Table`
groups figures as the paper prints them, a `Plot` draws them in the HTML report, a `Section` is a
table beyond the figures. A benchmark says which figures it has in one of two ways:

* `Figures`: the whole declaration as data (the figure-units view, the tables, the plots, the
  headline, the glossary). `Benchmark.figures = Figures(...)` is all a benchmark needs: every
  output is drawn from it by the core (the terminal report by `mathprobe.reports.terminal`, `compare`
  and its JSON / CSV by `mathprobe.reports.compare_render`, the Prefect artifact's Markdown by
  `mathprobe.reports.markdown`, the HTML report by `mathprobe.reports.html`).
* `Comparison`: the same, by methods, for figures that depend on the store (e.g. one per knowledge
  concept of a loaded tree) and a report of its own beside them.

Every figure is computed from the rows (run_id, grader, unit, item, cell, num, den) of the
benchmark's figure-units view, with intervals that resample whole units (mathprobe.reports.stats);
no renderer computes a figure of its own. The paper's figures of why answers fail are declared
with the benchmark's error taxonomy (`ErrorFigure` in an `ErrorTaxonomy`, mathprobe.error_taxonomy) and drawn by the
same renderers (mathprobe.reports.error_analysis).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mathprobe.store import Store

@dataclass(frozen=True)
class Stat:
    """One figure of a comparison, computed from the benchmark's figure units (`Comparison.units`:
    rows run_id, grader, unit, item, cell, num, den), with a bootstrap CI that resamples units.

    how = 'ratio': sum(num) / sum(den) over the rows of its one cell (an accuracy, a rate);
    'macro': the unweighted mean over `cells` of each cell's ratio (cells without rows skipped);
    'sd': the standard deviation (n - 1) of those ratios (e.g. the spread between repeated
    samples' accuracies; undefined for fewer than two cells with rows);
    'share_above': the share of `cells` (with rows) whose ratio is strictly above `alpha`.
    fmt: 'percent' (a fraction shown x100 with %), 'percent1' (the same with one decimal, as
    the CMMaTH authors print theirs), 'x100' (shown x100, e.g. Rouge-L), 'number'.
    counted: a ratio whose numerator counts things (right answers, problems), shown beside it.
    den_offset: added to each cell's summed denominator before dividing (e.g. 1 for the CMMaTH
    authors' right / (count + 1)); n stays the rows' count.
    bounded: the figure lies in [0, 1] (a share, a rate, a score); an unbounded one (e.g. a mean
    log-probability) gets no interval where its resamples are all equal.
    better: which way is better for this figure ('higher', 'lower': e.g. WE-MATH's IK), or None
    where neither is (e.g. contamination); `compare` colours a difference by it.
    """
    key: str                          # unique within the benchmark: 'score.strict'
    label: str                        # column heading: 'Score'
    cells: tuple[str, ...]
    how: str = "ratio"
    alpha: float | None = None
    fmt: str = "percent"
    counted: bool = True
    den_offset: float = 0.0
    bounded: bool = True
    better: str | None = "higher"


@dataclass(frozen=True)
class Table:
    """A table of figures: one row per run (rows='run'), or the paper's one row per model with a
    column group per prompt setting and their average (rows='model', e.g. ConceptMath Table 2).
    A `detail` table (e.g. 67 concepts) goes to JSON, CSV and the HTML report, not the terminal.

    layout: how one run's figures are laid out on the terminal. 'long': one line per figure
    (figure | value | 95% interval | n), for many figures or long labels; 'wide': the paper's
    one row with a column per figure and the intervals under it (e.g. WE-MATH Table 1's S1 S2
    S3 and the 12 categories), shown as a column where the terminal is too narrow."""
    key: str
    title: str
    stats: tuple[Stat, ...]
    rows: str = "run"
    detail: bool = False
    note: str = ""
    layout: str = "long"


@dataclass(frozen=True)
class Plot:
    """A figure of the HTML report, drawn by the core from figures already computed.

    kind: 'stacked' (one bar per run, `series` stacked: shares of one whole), 'bars' (groups =
    `series`, one bar per run), 'heatmap' (runs x `series`), 'curve' (x = `xs`, one line per run),
    'dots' (`series` down the page, one marker per run). Every value carries its CI.
    `marks`: run id -> stat keys drawn marked (e.g. unmastered concepts). `groups`: (heading,
    count) of consecutive `series` (e.g. a category's concepts), drawn as separated, headed
    blocks by the heat map and the dot plot. `full_names`: label -> the full name of an
    abbreviated label (shown on hover)."""
    key: str                          # file name under --figures
    title: str
    kind: str
    series: tuple[tuple[str, str], ...]   # (label, stat key)
    xs: tuple[float, ...] = ()
    xlabel: str = ""
    ylabel: str = ""
    marks: Mapping[str, frozenset[str]] = field(default_factory=dict)
    note: str = ""
    scale: float = 100.0              # values are drawn x scale ...
    unit: str = "%"                   # ... in this unit ('' for none)
    groups: tuple[tuple[str, int], ...] = ()
    full_names: Mapping[str, str] = field(default_factory=dict)
    marked: str = "marked"            # what a mark means, in the legend


@dataclass(frozen=True)
class Ranked:
    """One entry of a `Ranking`: its place (1 = the weakest), what it is, its figure with the 95%
    interval, n (what the figure is over), `count` (right answers, where counted) and `warning`:
    why its place should not be trusted, or '' (e.g. an interval that reaches the first figure
    outside the ranking)."""
    rank: int
    label: str
    value: float
    ci_low: float | None
    ci_high: float | None
    n: int
    count: int | None = None
    warning: str = ""


@dataclass(frozen=True)
class Ranking:
    """A run's lowest figures, ranked by a declared rule (`note` says it: what is ranked, how ties
    are broken, what was left out and why), e.g. ConceptMath's weakest concepts per system, the
    first step of the paper's targeted improvement. Drawn by every renderer (the run report on
    the terminal and as JSON, the Markdown artifact, `compare --json`, the HTML report)."""
    key: str
    title: str
    run_id: str
    entries: tuple[Ranked, ...]
    note: str = ""
    fmt: str = "percent"

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "run_id": self.run_id, "note": self.note,
                "fmt": self.fmt, "entries": [dict(e.__dict__) for e in self.entries]}


@dataclass(frozen=True)
class Section:
    """A table beyond the figures (e.g. WE-MATH's KCA transition matrix), shown as is."""
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""


class Comparison:
    """How a benchmark's runs are compared (`mathprobe compare`, the HTML report, the Prefect
    artifact). The default, for a benchmark that names none: one accuracy over all its items,
    from the core view `item_figure_units`. Every method is optional.

    Runs asked --samples K > 1 (docs/sampling.md) get the sampled figures as well, computed
    from `sampled_units` (a view of the same shape) and declared by `sampled_tables`: by
    default the core's (`sampled_tables` below: the mean accuracy over samples, each sample's
    accuracy and their spread, pass@k, maj@k); a benchmark may add its own (WE-MATH: its four
    dimensions per sample and on the majority answers)."""
    units: str = "item_figure_units"  # view: run_id, grader, unit, item, cell, num, den
    sampled_units: str = "sampled_figure_units"   # the same, for sampled runs
    # (stat key, label) of a run's headline figure; default: the first figure of the first table
    headline: tuple[str, str] | None = None
    weakest: tuple[str, ...] = ()     # keys of the tables whose figures are concepts

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        """The tables, in order; `cells` are the cells the compared runs have rows for."""
        return [Table("accuracy", "Accuracy", (Stat("all", "Accuracy", ("all",)),))]

    def sampled_tables(self, store: Store, cells: set[str]) -> list[Table]:
        """The tables of the sampled figures, after the others; `cells` are the cells of
        `sampled_units` the compared runs have (none for runs of one sample)."""
        return sampled_tables(cells)

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        """The report's plots, given figures[run_id][stat key] (value, ci_low, ci_high, n) and
        the runs (run_summary rows with their grader)."""
        return []

    def sections(self, store: Store, runs: Sequence[Mapping[str, Any]]) -> list[Section]:
        """Tables beyond the figures for these runs (each has run_id, model, setting, grader)."""
        return []

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        """(term, what it is and how it is computed, with the chance level where one exists)."""
        return []

    def rankings(self, store: Store, runs: Sequence[Mapping[str, Any]]) -> list[Ranking]:
        """The runs' rankings (e.g. each run's weakest concepts), read from the views; each run
        has run_id, setting and grader."""
        return []

    def notes(self, store: Store, run: Mapping[str, Any], grader: str) -> list[str]:
        """What a reader of one run's figures must know beside them, read from the views (e.g.
        problems left out because a question is unanswered, what other tools would print for
        the same answers): shown under the terminal report, in `report --json` ("notes") and
        in the run's Markdown artifact. `run` is the run's `run_summary` row."""
        return []



# -- a benchmark's figures declared as data --------------------------------------------------------

@dataclass(frozen=True)
class Each:
    """One figure per cell named `prefix...` that the compared runs have rows for (one per topic,
    per subject): its key is the cell, its label what follows the prefix. Stands for those
    figures in a `Table`'s stats or, as `Each(prefix)`, for their (label, key) series in a
    `Plot`."""
    prefix: str
    fmt: str = "percent"
    better: str | None = "higher"

    def stats(self, cells: set[str]) -> tuple[Stat, ...]:
        return tuple(Stat(c, c[len(self.prefix):], (c,), fmt=self.fmt, better=self.better)
                     for c in sorted(cells) if c.startswith(self.prefix))


@dataclass(frozen=True)
class Figures:
    """All of a benchmark's figures, as data: the view its figures are computed from (`units`:
    rows run_id, grader, unit, item, cell, num, den; the unit is what intervals resample), its
    tables in the paper's order (a table's stats are `Stat`s or `Each`), the plots of the HTML
    report (a plot's series are (label, stat key) pairs or `Each`), the headline figure (stat
    key, label), the tables whose figures are concepts (`weakest`), and the glossary. Set as
    `Benchmark.figures`; the terminal report, `compare` (JSON, CSV), the Markdown artifact and
    the HTML report are all drawn from it."""
    tables: tuple[Table, ...]
    units: str = "item_figure_units"
    plots: tuple[Plot, ...] = ()
    headline: tuple[str, str] | None = None
    weakest: tuple[str, ...] = ()
    glossary: tuple[tuple[str, str], ...] = ()
    # runs asked --samples K > 1: the view of their sampled figures' units and the tables the
    # benchmark adds to the core's (`sampled_tables`)
    sampled_units: str = "sampled_figure_units"
    sampled: tuple[Table, ...] = ()

    def comparison(self) -> Comparison:
        return Declared(self)


class Declared(Comparison):
    """The `Comparison` a `Figures` declaration makes: its tables with `Each` expanded over the
    cells the compared runs have, and its plots over the figures they have."""

    def __init__(self, figures: Figures):
        self.figures = figures
        self.units = figures.units
        self.sampled_units = figures.sampled_units
        self.headline = figures.headline
        self.weakest = figures.weakest

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        return _expanded(self.figures.tables, cells)

    def sampled_tables(self, store: Store, cells: set[str]) -> list[Table]:
        return sampled_tables(cells) + _expanded(self.figures.sampled, cells)

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        keys = {k for f in figures.values() for k in f}
        out = []
        for p in self.figures.plots:
            series = tuple(pair for x in p.series
                           for pair in ([(s.label, s.key) for s in x.stats(keys)]
                                        if isinstance(x, Each) else [x]))
            if any(k in keys for _, k in series):
                out.append(replace(p, series=series))
        return out

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        return list(self.figures.glossary)


def _expanded(tables: Sequence[Table], cells: set[str]) -> list[Table]:
    return [replace(t, stats=tuple(s for x in t.stats
                                   for s in (x.stats(cells) if isinstance(x, Each) else (x,))))
            for t in tables]


# -- the sampled figures (runs asked --samples K > 1: docs/sampling.md) --------------------------

SHOWN_K = 8          # pass@k and maj@k of every k on the terminal up to this K; beyond, powers of 2


def sample_count(cells: set[str]) -> int:
    """K: how many samples the compared runs' sampled cells (`sample:<s>`) have."""
    return 1 + max((int(c.split(":")[1]) for c in cells if c.startswith("sample:")), default=-1)


def sampled_tables(cells: set[str]) -> list[Table]:
    """The core's sampled figures over the cells of `sampled_figure_units` (sql/core/samples/):
    the mean accuracy over samples (the item the resampled unit), each sample's accuracy,
    their spread (the SD of those accuracies; the share of items whose samples disagree),
    pass@k (the unbiased estimator) and maj@k with its ties, for k = 1 .. K (the terminal shows
    every k up to K = 8, then 1, 2, 4, ... and K; JSON, CSV and HTML every k). None for runs
    of one sample."""
    k_max = sample_count(cells)
    if k_max < 2:
        return []
    every = range(1, k_max + 1)
    shown = [k for k in every if k_max <= SHOWN_K or k == k_max or not k & (k - 1)]
    samples = tuple(f"sample:{s}" for s in range(k_max))
    spread = Table("sampled", "Sampled answers: the accuracy over samples and their spread",
                   (Stat("sampled:mean", "Mean accuracy over samples", ("sampled:mean",)),
                    Stat("sampled:sd", "SD of the samples' accuracies", samples, how="sd",
                         better=None),
                    Stat("sampled:disagree", "Items whose samples disagree",
                         ("sampled:disagree",), better=None),
                    *(Stat(c, f"Sample {c.split(':')[1]}", (c,)) for c in samples
                      if len(samples) <= SHOWN_K)),
                   note="the item is the resampled unit (its samples travel together); a "
                   "failed or cut sample is left out, its item counting with the samples it has")

    def by_k(key: str, title: str, ks: Sequence[int], detail: bool, note: str) -> Table:
        stats = [Stat(f"{key}@{k}", f"{key}@{k}", (f"{key}@{k}",), counted=key == "maj")
                 for k in ks]                   # pass@k's sums of chances count nothing
        if key == "maj":
            stats += [Stat(f"maj_tie@{k}", f"ties@{k}", (f"maj_tie@{k}",), better=None)
                      for k in ks if k >= 2]
        return Table(f"{key}_at_k" + (".all" if detail else ""), title, tuple(stats),
                     detail=detail, note=note, layout="long" if detail else "wide")

    out = [spread]
    for detail, ks in ((False, shown), *(((True, list(every)),) if shown != list(every) else ())):
        out.append(by_k("pass", "pass@k: the chance that k of the samples hold a right answer",
                        ks, detail, "the unbiased estimator 1 - C(n-c, k) / C(n, k) of each "
                        "item's n valid samples, c right (Chen et al. 2021), averaged over the "
                        "items with at least k"))
        out.append(by_k("maj", "maj@k: the majority answer of k samples", ks, detail,
                        "majority vote of the extracted answers of the item's first k valid "
                        "samples; a tie (ties@k: share of items) goes to the answer given "
                        "first"))
    if len(samples) > SHOWN_K:
        out.append(Table("samples", "Accuracy of each sample",
                         tuple(Stat(c, f"Sample {c.split(':')[1]}", (c,)) for c in samples),
                         detail=True))
    return out


def sampled_plots(figures: Mapping[str, Mapping[str, Any]]) -> list[Plot]:
    """pass@k and maj@k against k for the compared runs that have them (the HTML report)."""
    keys = {k for f in figures.values() for k in f}
    out = []
    for key, title in (("pass", "pass@k against k"), ("maj", "maj@k against k")):
        ks = sorted(int(k.split("@")[1]) for k in keys if k.startswith(f"{key}@"))
        if len(ks) >= 2:
            out.append(Plot(f"sampled-{key}-at-k", title, "curve",
                            tuple((str(k), f"{key}@{k}") for k in ks),
                            xs=tuple(float(k) for k in ks), xlabel="k", ylabel=f"{key}@k"))
    return out


@dataclass(frozen=True)
class ErrorFigure:
    """A figure of a paper's error analysis beyond the distribution, read from `view` (whose
    rows carry run_id, grader, labeler), drawn by every report.

    kind 'matrix': counts of each type by a row label (`row`, e.g. the knowledge concept),
    optionally grouped under `group` (e.g. its category); the view has a row per (row, type)
    with the count in `count`. kind 'listing': the rows as they are, the `columns` shown
    (column, heading), in `order`."""
    key: str
    title: str
    kind: str
    view: str
    columns: tuple[tuple[str, str], ...] = ()
    row: str = ""
    group: str = ""
    count: str = "n"
    order: str = ""
    note: str = ""


__all__ = ["Comparison", "Declared", "Each", "ErrorFigure", "Figures", "Plot", "Ranked", "Ranking",
           "Section", "Stat", "Table", "sample_count", "sampled_plots", "sampled_tables"]
