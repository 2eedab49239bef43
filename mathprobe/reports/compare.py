"""`mathprobe compare`: the papers' multi-model tables from stored runs, every figure with its
95% interval (`mathprobe.reports.stats`: Wilson for shares of independent items, else the bootstrap
over units) and n, and each run against the first (the baseline) with the paired difference, its
interval (Tango's score interval for paired right/wrong items, else the paired bootstrap) and a
p-value (exact McNemar for right/wrong shares, the paired bootstrap otherwise, the exact sign
test of the units that moved where too few moved for the bootstrap: stats.MIN_N), adjusted for
the many figures of a table by Benjamini-Hochberg (docs/intervals.md).

What is compared, and how, is each benchmark's `Comparison` (mathprobe.contract): its figure-units
view, its tables (rows per run, or the paper's rows per model with a column group per setting
and their average), its extra sections (e.g. WE-MATH's KCA transition matrix), glossary and
plots. This module only computes; `mathprobe.reports.compare_render` shows the result.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mathprobe import registry
from mathprobe.contract import Benchmark, Plot, Section, Stat, Table
from mathprobe.errors import MathprobeError
from mathprobe.figures import Ranking, sampled_plots
from mathprobe.reports import card as run_card
from mathprobe.reports import error_analysis, intervals, stats, units
from mathprobe.reports.graders import GraderFigure, compare_graders
from mathprobe.reports.selection import check_grader, default_graders, find_run
from mathprobe.reports.unit_sums import UnitSums
from mathprobe.runs.judging import JUDGE_RUN_MARK
from mathprobe.runs.labelling import LABEL_RUN_MARK
from mathprobe.store import Store

# how a difference's interval was made (`Difference.ci_method`; named in stats.METHODS)
TANGO = stats.TANGO               # Tango's score interval of paired right/wrong items
TANGO_UNITS = stats.TANGO_UNITS   # the paired bootstrap collapsed: Tango over the m units


@dataclass
class Difference:
    """Run `run_b` minus the baseline `run_a` on one figure, over the units both have (over
    the items both graded where the test is McNemar's). `p_adjusted`: the Benjamini-Hochberg
    adjusted p-value within `family` (the table the figure belongs to; its `family_size`
    figures tested for this run); `significant`: by `stats.significant` (p_adjusted < 0.05 and
    an interval clear of 0), the one rule every output marks by. `better`: which way is
    better for the figure; `improved`: the difference goes that way (None: no direction, or
    no change)."""
    run_a: str
    run_b: str
    stat: str
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    n: int                       # units (problems, questions) both runs have; McNemar: items
    test: str                    # 'mcnemar' | 'sign' | 'bootstrap' (stats.MIN_N)
    p_value: float | None
    significant: bool            # stats.significant: the one rule every output marks by
    only_a: int | None = None    # McNemar: right in run_a only; sign: units higher in run_a
    only_b: int | None = None
    ci_method: str = stats.BOOTSTRAP
    p_adjusted: float | None = None
    family: str | None = None
    family_size: int = 1
    better: str | None = "higher"
    improved: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ModelRow:
    """One row of a rows='model' table: a model's runs by setting, and their average."""
    model: str
    runs: dict[str, str]                 # setting -> run_id
    average: stats.Estimate


@dataclass
class BenchComparison:
    benchmark: str
    title: str
    runs: list[dict[str, Any]]                          # run_summary rows + grader, in order
    tables: list[Table]
    figures: dict[str, dict[str, stats.Estimate]]       # run_id -> stat key -> estimate
    model_rows: dict[str, list[ModelRow]] = field(default_factory=dict)   # table key -> rows
    differences: list[Difference] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    glossary: list[tuple[str, str]] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    graders: list[GraderFigure] = field(default_factory=list)  # runs with several graders
    headline: Stat | None = None                                 # the figure graders are shown by
    headline_label: str | None = None       # what the headline is called (e.g. 'Score (strict)')
    weakest: tuple[str, ...] = ()           # keys of the tables whose figures are concepts
    settings: tuple[str, ...] = ()          # the benchmark's settings, in its order
    # everything a renderer needs is here: it never goes back to the registry or this module
    baseline: str | None = None                                  # the first run's id
    runs_of: dict[str, list[dict[str, Any]]] = field(default_factory=dict)   # table key -> runs
    # why the runs failed: their error types (mathprobe.reports.error_analysis), if labelled
    errors: dict[str, Any] | None = None
    rankings: list[Ranking] = field(default_factory=list)       # e.g. each run's weakest concepts
    notes: dict[str, list[str]] = field(default_factory=dict)    # run id -> (notes.attach)

    def _table_runs(self, table: Table) -> list[dict[str, Any]]:
        """The runs that have a figure of `table` (e.g. probe runs only in probe tables)."""
        keys = [s.key for s in table.stats]
        return [r for r in self.runs
                if any(self.figures.get(r["run_id"], {}).get(k) is not None for k in keys)]


@dataclass
class ComparisonResult:
    benchmarks: list[BenchComparison]
    resamples: int
    seed: int
    confidence: float

    def run_ids(self) -> list[str]:
        return [r["run_id"] for b in self.benchmarks for r in b.runs]


def select_runs(store: Store, run_ids: Sequence[str], benchmark: str | None) -> list[dict[str, Any]]:
    """The runs asked for (in that order), then, with `benchmark`, every other run of it (oldest
    first; the judges' and labellers' own runs left out)."""
    wanted = list(dict.fromkeys(run_ids))
    if benchmark is None and not wanted:
        raise MathprobeError("name the runs to compare, or --benchmark B for all runs of one")
    if benchmark is not None and benchmark not in registry.names():
        raise MathprobeError(f"--benchmark {benchmark!r}: unknown benchmark; available: "
                             f"{', '.join(registry.names())}")
    rows = store.query_dicts(
        "SELECT * FROM run_summary WHERE list_contains(?, run_id) OR (benchmark = ? AND NOT "
        "contains(run_id, ?) AND NOT contains(run_id, ?)) ORDER BY started_at, run_id",
        [wanted, benchmark, JUDGE_RUN_MARK, LABEL_RUN_MARK])
    by_id = {r["run_id"]: r for r in rows}
    for r in wanted:
        if r not in by_id:
            find_run(store, r)                   # the error that lists the store's runs
    if not rows:
        raise MathprobeError(f"no {benchmark} runs in {store.path}")
    return [by_id[r] for r in wanted] + [r for r in rows if r["run_id"] not in set(wanted)]


def compare(store: Store, run_ids: Sequence[str] = (), *, benchmark: str | None = None,
            grader: str | None = None, resamples: int = stats.RESAMPLES,
            seed: int = stats.SEED) -> ComparisonResult:
    runs = select_runs(store, run_ids, benchmark)
    if grader is not None:
        check_grader(store, {r["run_id"]: (r["benchmark"], r["setting"]) for r in runs}, grader)
    by_bench: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by_bench.setdefault(r["benchmark"], []).append(r)
    chosen = default_graders(store, {r["run_id"]: registry.get(r["benchmark"]) for r in runs})
    out = []
    for name, bench_runs in by_bench.items():
        bench = registry.get(name)
        for r in bench_runs:
            r["grader"] = grader or chosen[r["run_id"]]
        out.append(compare_benchmark(store, bench, bench_runs, resamples=resamples, seed=seed))
        cards = run_card.differences_section(store, bench_runs)
        if cards is not None:
            out[-1].sections.append(cards)
    return ComparisonResult(out, resamples, seed, stats.CONFIDENCE)


def compare_benchmark(store: Store, bench: Benchmark, runs: list[dict[str, Any]], *,
                      resamples: int = stats.RESAMPLES, seed: int = stats.SEED) -> BenchComparison:
    spec = bench.comparison
    frame = units.read(store, spec.units, [(r["run_id"], r["grader"]) for r in runs])
    tables = _with_cells(spec.tables(store, set(frame.cells)), set(frame.cells))
    result = BenchComparison(bench.name, bench.title, runs, tables, {}, weakest=spec.weakest,
                             settings=tuple(bench.settings), baseline=runs[0]["run_id"])
    for r in runs:
        result.figures[r["run_id"]] = {}
    compiled = _evaluate_runs(result, frame, tables, resamples, seed)
    sampled = [(r["run_id"], r["grader"]) for r in runs if (r.get("samples") or 1) > 1]
    if sampled:                      # --samples K: the sampled figures, from a frame of their own
        more = units.read(store, spec.sampled_units, sampled)
        extra = _with_cells(spec.sampled_tables(store, set(more.cells)), set(more.cells))
        _evaluate_runs(result, more, extra, resamples, seed)
        result.tables = tables = tables + extra
    result.runs_of = {t.key: result._table_runs(t) for t in tables}
    for t in tables:
        if t.rows == "model":
            result.model_rows[t.key] = _model_rows(t, compiled, frame, result, bench,
                                                   resamples, seed)
    result.sections = spec.sections(store, runs)
    result.rankings = spec.rankings(store, runs)
    result.glossary = spec.glossary(store)
    result.headline = headline_stat(spec, tables)
    if result.headline is not None:
        result.headline_label = (spec.headline[1] if spec.headline is not None
                                 and spec.headline[0] == result.headline.key
                                 else result.headline.label)
    result.graders = compare_graders(store, bench, runs, result.headline, resamples, seed)
    shown = {r["run_id"]: {k: e.as_dict() for k, e in f.items()} for r in runs
             for f in [result.figures[r["run_id"]]]}
    result.plots = spec.plots(store, shown, runs) + (sampled_plots(shown) if sampled else [])
    result.errors = error_analysis.build(store, bench, runs)
    return result


def _with_cells(declared: Sequence[Table], present: set[str]) -> list[Table]:
    """The declared tables with only the figures some run has a cell for (none: left out)."""
    tables = []
    for t in declared:
        kept = tuple(s for s in t.stats if any(c in present for c in s.cells))
        if kept:
            tables.append(replace(t, stats=kept))
    return tables


def _evaluate_runs(result: BenchComparison, frame: units.Frame, tables: list[Table],
                   resamples: int, seed: int) -> stats.Compiled:
    """Every figure of `tables` for each run of `result` from `frame` (its figures added to
    the run's), and each run against the baseline (the first run) where both have rows."""
    all_stats = list({s.key: s for t in tables for s in t.stats}.values())
    compiled = stats.Compiled(all_stats, frame.cell_index)
    base_id = result.runs[0]["run_id"]
    base = None
    families = _families(tables)              # stat key -> the table its differences belong to
    for r in result.runs:
        ru = frame.runs.get(r["run_id"])
        if ru is None:
            continue
        point, reps = _evaluate(compiled, ru.sums, resamples, seed)
        lo, hi, methods = compiled.intervals(point, reps, ru)
        sizes = compiled.sizes(*stats.full_sums(ru.sums))
        result.figures[r["run_id"]].update({
            s.key: stats.Estimate(_f(point[k]), _f(lo[k]), _f(hi[k]), *sizes[k], methods[k])
            for k, s in enumerate(all_stats) if not np.isnan(point[k])})
        this = _Evaluated(r["run_id"], ru, point, reps,
                          stats.binary_outcomes(ru.rows, len(frame.cells)), ru.binary_cells())
        if r["run_id"] == base_id:
            base = this
        elif base is not None:
            result.differences += _adjusted(
                _differences(compiled, base, this, set(families), resamples, seed), families)
    return compiled


def headline_stat(spec, tables: Sequence[Table]) -> Stat | None:
    """The comparison's headline figure: the one it names, else the first of its first table."""
    shown = [s for t in tables for s in t.stats]
    if spec.headline is not None:
        named = next((s for s in shown if s.key == spec.headline[0]), None)
        if named is not None:
            return named
    first = next((t for t in tables if not t.detail and t.stats), None)
    return first.stats[0] if first is not None else None


def _f(x: float) -> float | None:
    return None if x is None or np.isnan(x) else float(x)


def _evaluate(compiled: stats.Compiled, sums: UnitSums, resamples: int, seed: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """(point estimates, resampled values) of every stat over the units' sums."""
    n_sum, d_sum = stats.full_sums(sums)
    point = compiled.evaluate(n_sum[None, :], d_sum[None, :])[0]
    reps = compiled.evaluate(*stats.resample_sums(sums, resamples, seed))
    return point, reps


@dataclass
class _Evaluated:
    run_id: str
    units: stats.RunUnits
    point: np.ndarray
    reps: np.ndarray
    binary: dict[int, tuple[np.ndarray, np.ndarray]]     # cell -> McNemar outcomes
    independent: np.ndarray                              # cell -> one item per unit at most


def _families(tables: list[Table]) -> dict[str, str]:
    """stat key -> the key of the first per-run table that shows it: the family whose
    p-values are adjusted together (a table's figures, one run against the baseline)."""
    out: dict[str, str] = {}
    for t in tables:
        if t.rows == "run":
            for s in t.stats:
                out.setdefault(s.key, t.key)
    return out


def _differences(compiled: stats.Compiled, a: _Evaluated, b: _Evaluated, keys: set[str],
                 resamples: int, seed: int) -> list[Difference]:
    """b minus a on every figure of `keys`, over the units both have: a share of independent
    right/wrong items (both runs) over the items both graded, with Tango's interval; any other
    figure with the paired bootstrap's, or where that collapsed to a point, Tango's over the
    units (how many moved up, how many down). The test: McNemar's for right/wrong items, else
    the paired bootstrap, or the sign test of the moved units where fewer than its minimum
    moved (stats.MIN_N)."""
    common = np.intersect1d(a.units.units, b.units.units, assume_unique=True)
    if not len(common):                                   # nothing both runs answered
        return []
    if len(common) == len(a.units.units) == len(b.units.units):   # the same units: paired
        pa, ra, pb, rb = a.point, a.reps, b.point, b.reps
    else:
        pa, ra = _evaluate(compiled, a.units.on(common), resamples, seed)
        pb, rb = _evaluate(compiled, b.units.on(common), resamples, seed)
    diff, reps = pb - pa, rb - ra
    lo, hi = stats.interval(diff, reps)
    p_boot = stats.bootstrap_p(reps)
    cell_of = dict(compiled.ratio)
    moved = _UnitMoves(a.units, b.units, common)
    out, paired, collapsed = [], [], []       # Tango's intervals: computed together below
    for k, s in enumerate(compiled.stats):
        if s.key not in keys or np.isnan(diff[k]):
            continue
        c = cell_of.get(k)
        d = Difference(a.run_id, b.run_id, s.key, float(diff[k]), _f(lo[k]), _f(hi[k]),
                       len(common), stats.BOOTSTRAP_TEST, float(p_boot[k]), False,
                       better=s.better)
        if c is not None and c in a.binary and c in b.binary:
            pairs, d.only_a, d.only_b = stats.discordant(a.binary[c], b.binary[c])
            d.test = stats.MCNEMAR
            if a.independent[c] and b.independent[c] and pairs:
                d.diff, d.n, d.ci_method = (d.only_b - d.only_a) / pairs, pairs, TANGO
                paired.append((d, d.only_b, d.only_a, pairs))
        collapsed_here = d.ci_method != TANGO and not (
            d.ci_high is not None and d.ci_low is not None and d.ci_high > d.ci_low)
        if d.test == stats.BOOTSTRAP_TEST or collapsed_here:
            up, down, m = moved.counts(compiled.cells_of(k))
        if d.test == stats.BOOTSTRAP_TEST and (
                collapsed_here or up + down < stats.MIN_N[stats.BOOTSTRAP_TEST]):
            # too few units moved for the bootstrap's p-value, or its resamples all agree:
            # the exact sign test of the units that moved, up against down (stats.MIN_N)
            d.test, d.only_a, d.only_b = stats.SIGN, down, up
        if collapsed_here:
            if s.bounded and m:           # collapsed: Tango over the units that moved
                d.ci_method = TANGO_UNITS
                collapsed.append((d, up, down, m))
            else:
                d.ci_low = d.ci_high = None
                d.ci_method = stats.NO_INTERVAL
        if s.better is not None and d.diff:
            d.improved = (d.diff > 0) == (s.better == "higher")
        out.append(d)
    tested = [d for d in out if d.test in (stats.MCNEMAR, stats.SIGN)]      # exact tests
    if tested:
        for d, p in zip(tested, np.atleast_1d(stats.mcnemar(np.array([d.only_a for d in tested]),
                                                            np.array([d.only_b for d in tested])))):
            d.p_value = float(p)
    for group in (paired, collapsed):
        if group:
            ds, ups, downs, ns = zip(*group)
            low, high = intervals.tango(ups, downs, ns, stats.CONFIDENCE)
            for d, lo_d, hi_d in zip(ds, np.atleast_1d(low), np.atleast_1d(high)):
                d.ci_low, d.ci_high = min(float(lo_d), d.diff), max(float(hi_d), d.diff)
    return out


class _UnitMoves:
    """Per common unit, whether a figure's numerators went up or down from run a to run b,
    and how many units have rows in its cells (for the interval of a difference whose paired
    bootstrap collapsed)."""

    def __init__(self, a: stats.RunUnits, b: stats.RunUnits, common: np.ndarray):
        self.a, self.b, self.common = a, b, common
        self._change: tuple[UnitSums, UnitSums] | None = None   # (a, b) on the common units

    def counts(self, cells: np.ndarray) -> tuple[int, int, int]:
        """(units up, units down, units with rows) over `cells`."""
        if self._change is None:
            self._change = self.a.on(self.common), self.b.on(self.common)
        if not len(cells):
            return 0, 0, 0
        a, b = self._change
        change = b.per_unit(cells, b.num) - a.per_unit(cells, a.num)
        rows = a.per_unit(cells, (a.den != 0) * 1.0) + b.per_unit(cells, (b.den != 0) * 1.0)
        return int((change > 0).sum()), int((change < 0).sum()), int((rows > 0).sum())


def _adjusted(diffs: list[Difference], families: dict[str, str]) -> list[Difference]:
    """Each difference's Benjamini-Hochberg adjusted p-value within its family (the figures of
    one table, this run against the baseline), and significance by it."""
    by: dict[str, list[Difference]] = {}
    for d in diffs:
        by.setdefault(families.get(d.stat, d.stat), []).append(d)
    for family, ds in by.items():
        adjusted = intervals.adjust([d.p_value for d in ds])
        for d, p in zip(ds, adjusted):
            d.family, d.family_size, d.p_adjusted = family, len(ds), _f(p)
            d.significant = stats.significant(d.p_adjusted, (d.ci_low, d.ci_high))
    return diffs


def _model_rows(table: Table, compiled: stats.Compiled, frame: units.Frame,
                result: BenchComparison, bench: Benchmark, resamples: int,
                seed: int) -> list[ModelRow]:
    """Per model (in order of first appearance): its latest run of each setting among the
    compared runs that have the table's figures, and the mean of all their cells, resampled
    jointly over the union of the runs' units."""
    keys = [s.key for s in table.stats]
    at = [k for k, s in enumerate(compiled.stats) if s.key in keys]
    by_model: dict[str, dict[str, dict[str, Any]]] = {}
    for r in sorted(result.runs_of[table.key], key=lambda r: (r["started_at"] is None,
                                                             r["started_at"])):
        by_model.setdefault(r["model"], {})[r["setting"]] = r       # the latest wins
    order = list(dict.fromkeys(r["model"] for r in result.runs_of[table.key]))
    rows = []
    for model in order:
        chosen = {s: by_model[model][s]["run_id"]
                  for s in sorted(by_model[model], key=lambda s: setting_order(bench.settings, s))}
        members = [frame.runs[i] for i in chosen.values() if i in frame.runs]
        universe = np.unique(np.concatenate([m.units for m in members]))
        points, reps = [], []
        for m in members:
            p, resampled = _evaluate(compiled, m.on(universe), resamples, seed)
            points.append(p[at])
            reps.append(resampled[:, at])
        p_all = np.concatenate(points)
        r_all = np.concatenate(reps, axis=1)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)    # resamples where no cell has rows
            point = np.nanmean(p_all) if not np.all(np.isnan(p_all)) else np.nan
            rep = np.nanmean(r_all, axis=1)
        lo, hi = stats.interval(np.array([point]), rep[:, None])
        method = stats.BOOTSTRAP
        if not hi[0] > lo[0] and not np.isnan(point):     # collapsed: Wilson over the units
            lo, hi = intervals.wilson(np.array([point * len(universe)]),
                                      np.array([len(universe)]), stats.CONFIDENCE)
            method = stats.WILSON_UNITS
        n = int(np.sum(~np.isnan(p_all)))
        rows.append(ModelRow(model, chosen, stats.Estimate(_f(point), _f(lo[0]), _f(hi[0]), n,
                                                           ci_method=method)))
    return rows


def setting_order(settings: Sequence[str], setting: str) -> tuple[int, str]:
    """Settings in the benchmark's order (`settings`), then any other by name."""
    return (settings.index(setting) if setting in settings else len(settings), setting)
