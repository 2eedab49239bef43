"""WE-MATH's figures, declared once for every report (terminal, `report --json`, compare, the
Markdown artifact, the HTML report): the paper's Table 2 (Score, IK, IG, CM, RM under the strict
and loose rules) and Table 1 (S1-S3 and the 12 categories) in the paper's one-row layout, the 67
leaf concepts, the KCA-vs-plain transition matrix (Fig. 10), the plots of the HTML report, and
the notes on a run (problems left out, what the tools that divide by 525 print). Figures come
from the view `wemath_figure_units` (sql/wemath/units/wemath_figure_units.sql), resampled by
whole problems."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from mathprobe.figures import (
    Comparison,
    Plot,
    Section,
    Stat,
    Table,
    sample_count,
    sampled_tables,
)
from mathprobe.reports.format import pct
from mathprobe.store import Store

# The paper's column abbreviations for the 12 second-level categories (Table 1), in its order
# (the order of the authors' evaluation/accuracy.py too: CPF before UPF, CSF before USF).
WEMATH_CATEGORIES = {
    "Understanding and Conversion of Units": "UCU",
    "Angles and Length": "AL",
    "Calculation of Plane Figures": "CPF",
    "Understanding of Plane Figures": "UPF",
    "Calculation of Solid Figures": "CSF",
    "Understanding of Solid Figures": "USF",
    "Basic Transformations of Figures": "BTF",
    "Cutting and Combining of Figures": "CCF",
    "Direction": "Dir",
    "Position": "Pos",
    "Route Map": "RoM",
    "Correspondence of Coordinates and Positions": "CCP",
}

RULES = ("strict", "loose")
DIMENSIONS = ("IK", "IG", "CM", "RM")


def four_d(rule: str) -> tuple[Stat, ...]:
    """Score and CM: higher is better; IK, IG and RM (failures, rote successes): lower."""
    return (Stat(f"score.{rule}", "Score", (f"score.{rule}",), counted=False),
            Stat("ik", "IK", ("ik",), better="lower"), Stat("ig", "IG", ("ig",), better="lower"),
            Stat(f"cm.{rule}", "CM", (f"cm.{rule}",)),
            Stat(f"rm_rate.{rule}", "RM", (f"rm_rate.{rule}",), better="lower"))


def leaves(store: Store) -> dict[str, list[str]]:
    """category (root2) -> its leaves, in the paper's category order."""
    rows = store.query("SELECT root2, leaf FROM wemath_knowledge ORDER BY leaf")
    out: dict[str, list[str]] = {c: [] for c in WEMATH_CATEGORIES}
    for category, leaf in rows:
        out.setdefault(category, []).append(leaf)
    return out


def on_answers(stat: Stat, answers: str, label: str) -> Stat:
    """`stat` of Table 2 computed on other answers (sql/wemath/units/
    wemath_sampled_figure_units.sql: 'maj' the majority answers, 's<k>' sample k's)."""
    return replace(stat, key=f"{answers}:{stat.key}",
                   label=f"{stat.label} {label}" if label else stat.label,
                   cells=tuple(f"{answers}:{c}" for c in stat.cells))


def sampled_four_d(rule: str, k_max: int) -> list[Table]:
    """Table 2 of a run asked --samples K: on the majority answers and averaged over the
    samples (the terminal), and of each sample (JSON, CSV, HTML). The paper's Table 2 above
    them is sample 0's."""
    stats = four_d(rule)
    mean = tuple(replace(s, key=f"mean:{s.key}", how="macro", counted=False,
                         cells=tuple(f"s{k}:{c}" for k in range(k_max) for c in s.cells))
                 for s in stats)
    return [
        Table(f"table2.{rule}.majority", f"WE-MATH Table 2, {rule} rule, on the majority "
              "answers (each question's majority over its samples)",
              tuple(on_answers(s, "maj", "") for s in stats), layout="wide",
              note="a problem counts where every question has a majority answer; rate (count)"),
        Table(f"table2.{rule}.mean", f"WE-MATH Table 2, {rule} rule, the mean over "
              f"{k_max} samples (each sample's Table 2, averaged)", mean, layout="wide"),
        Table(f"table2.{rule}.samples", f"WE-MATH Table 2, {rule} rule, of each sample",
              tuple(on_answers(s, f"s{k}", f"(sample {k})") for k in range(k_max)
                    for s in stats), detail=True),
    ]


class WeMathComparison(Comparison):
    units = "wemath_figure_units"
    sampled_units = "wemath_sampled_figure_units"     # problems resampled, as in `units`
    headline = ("score.strict", "Score (strict)")
    weakest = ("concepts",)

    def sampled_tables(self, store: Store, cells: set[str]) -> list[Table]:
        """The core's sampled figures (the item's samples resampled with its problem), then
        Table 2 per sample and on the majority answers (docs/sampling.md)."""
        k_max = sample_count(cells)
        return sampled_tables(cells) + [t for rule in RULES
                                        for t in sampled_four_d(rule, k_max)] if k_max > 1 else []

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        by_cat = leaves(store)
        cats = tuple(Stat(f"category:{c}", WEMATH_CATEGORIES.get(c, c),
                          tuple(f"concept:{leaf}" for leaf in ls), how="macro")
                     for c, ls in by_cat.items() if ls)
        concepts = tuple(Stat(f"concept:{leaf}", leaf, (f"concept:{leaf}",))
                         for ls in by_cat.values() for leaf in ls)
        return [
            *(Table(f"table2.{rule}", f"WE-MATH Table 2, {rule} rule: four-dimensional metric",
                    four_d(rule), note="Score = (0.5 IG + CM) / N; IK, IG, CM as shares of the "
                    "N problems; RM = RM / (RM + CM); rate (count)", layout="wide")
              for rule in RULES),
            Table("table1", "WE-MATH Table 1: accuracy by step count and category",
                  (Stat("s1", "S1", ("s1",)), Stat("s2", "S2", ("s2",)), Stat("s3", "S3", ("s3",)),
                   *cats), note="category = mean of its leaf concepts' accuracies; "
                  + " ".join(f"{a}={name}" for name, a in WEMATH_CATEGORIES.items()),
                  layout="wide"),
            Table("shares", "WE-MATH problems by dimension (shares of N; they sum to 1)",
                  (Stat("ik", "IK", ("ik",), better="lower"),
                   Stat("ig", "IG", ("ig",), better="lower"),
                   *(Stat(f"{d}.{rule}", f"{d.upper()} ({rule})", (f"{d}.{rule}",),
                          better="higher" if d == "cm" else "lower")
                     for rule in RULES for d in ("cm", "rm"))), detail=True),
            Table("concepts", "WE-MATH accuracy of the 67 leaf concepts (one-step questions)",
                  concepts, detail=True),
        ]

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        by_cat = leaves(store)
        stacked = [Plot(f"wemath-4d-{rule}", f"Four-dimensional metric, {rule} rule "
                        "(share of the N problems)", "stacked",
                        (("IK", "ik"), ("IG", "ig"), ("CM", f"cm.{rule}"), ("RM", f"rm.{rule}")),
                        xlabel="share of problems")
                   for rule in RULES]
        table1 = Plot("wemath-table1", "Accuracy by step count and category (paper Table 1)",
                      "bars", (("S1", "s1"), ("S2", "s2"), ("S3", "s3"),
                               *((WEMATH_CATEGORIES.get(c, c), f"category:{c}")
                                 for c, ls in by_cat.items() if ls)),
                      ylabel="accuracy",
                      full_names={WEMATH_CATEGORIES.get(c, c): c for c in by_cat},
                      note="categories abbreviated as in the paper (hover for the full name; "
                           "the glossary lists them)")
        concepts = Plot("wemath-concepts", "Accuracy of the 67 leaf concepts", "heatmap",
                        tuple((leaf, f"concept:{leaf}") for ls in by_cat.values() for leaf in ls),
                        groups=tuple((c, len(ls)) for c, ls in by_cat.items() if ls),
                        xlabel="accuracy",
                        note="rows grouped by category, in Table 1's order")
        return [*stacked, table1, concepts]

    def sections(self, store: Store, runs: Sequence[Mapping[str, Any]]) -> list[Section]:
        """Per model with two or more compared runs: how its problems moved between the four
        dimensions from its plain run to its KCA run (paper Fig. 10), or else from its first
        compared run to its second."""
        out = []
        by_model: dict[str, list[Mapping[str, Any]]] = {}
        for r in runs:
            by_model.setdefault(r["model"], []).append(r)
        for model, rs in by_model.items():
            if len(rs) < 2:
                continue
            plain = [r for r in rs if r["setting"] == "plain"]
            kca = [r for r in rs if r["setting"] == "kca"]
            a, b = (plain[-1], kca[-1]) if plain and kca else (rs[0], rs[1])
            for rule in RULES:
                cells = store.query("SELECT from_dim, to_dim, n FROM wemath_transitions(?, ?, "
                                    "grader_name := ?) WHERE rule = ?",
                                    [a["run_id"], b["run_id"], a["grader"], rule])
                matrix = {(f, t): n for f, t, n in cells}
                rows = tuple((f, *(matrix.get((f, t), 0) for t in DIMENSIONS),
                              sum(matrix.get((f, t), 0) for t in DIMENSIONS))
                             for f in DIMENSIONS)
                total = sum(r[-1] for r in rows)
                out.append(Section(
                    f"{model}: problems from {a['run_id']} ({a['setting']}, rows) to "
                    f"{b['run_id']} ({b['setting']}, columns), {rule} rule",
                    (f"{a['setting']} \\ {b['setting']}", *DIMENSIONS, "total"), rows,
                    note=f"N = {total} problems complete in both runs (paper Fig. 10; view "
                         "wemath_transitions)"))
        return out

    def notes(self, store: Store, run: Mapping[str, Any], grader: str) -> list[str]:
        """The problems left out of every figure because a question is unanswered, and where the
        run holds other than 525 problems, what the tools that divide by 525 print."""
        args = [run["run_id"], grader]
        out = []
        n525 = {r["rule"]: r for r in store.query_dicts(
            "SELECT rule, n, score, ik_rate, ig_rate, cm_rate FROM wemath_four_dimensional_n525 "
            "WHERE run_id = ? AND grader = ?", args)}
        ours = dict(store.query("SELECT rule, score FROM wemath_four_dimensional "
                                "WHERE run_id = ? AND grader = ?", args))
        strict, loose = n525.get("strict"), n525.get("loose")
        if strict and loose and strict["n"] != 525:
            out.append(
                f"N = {strict['n']} problems (from the data). The authors' script, VLMEvalKit and "
                f"lmms-eval divide by N = 525 whatever the file holds: for these answers they "
                f"print Score {pct(strict['score'])} strict / {pct(loose['score'])} loose (here "
                f"{pct(ours.get('strict'))} / {pct(ours.get('loose'))}), IK "
                f"{pct(strict['ik_rate'])}, IG {pct(strict['ig_rate'])}, CM "
                f"{pct(strict['cm_rate'])} strict (view wemath_four_dimensional_n525)")
        (left_out, with_failed, failed_questions, with_cut, cut_questions), = store.query(
            "SELECT count(*), count(*) FILTER (n_failed > 0), coalesce(sum(n_failed), 0), "
            "count(*) FILTER (n_truncated > 0 AND n_failed = 0), coalesce(sum(n_truncated), 0) "
            "FROM wemath_problem_coverage WHERE run_id = ? AND NOT complete", [run["run_id"]])
        if left_out:
            cut = (f"{with_cut} with an answer cut at the token cap ({int(cut_questions)} "
                   "question(s), truncated; a larger --max-tokens re-asks them), "
                   if cut_questions else "")
            out.append(
                f"{left_out} problem(s) left out of every figure (N, S1-S3, categories, concepts) "
                f"because a question has no answer: {with_failed} with a failed call "
                f"({int(failed_questions)} question(s), infra_failed; --retry-failed re-asks "
                f"them), {cut}{left_out - with_failed - with_cut} not fully asked yet")
        return out

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        chance = store.query("""
            SELECT avg(1 / (len(string_split(payload->>'option', ';')))) FILTER (part NOT LIKE '%multi'),
                   avg(1 / (len(string_split(payload->>'option', ';')))) FILTER (part = '2steps_multi'),
                   avg(1 / (len(string_split(payload->>'option', ';')))) FILTER (part = '3steps_multi')
            FROM items WHERE benchmark = 'wemath'""")
        s1, s2, s3 = chance[0] if chance else (None, None, None)

        def c(x):
            return f"{100 * x:.1f}%" if x is not None else "-"
        abbr = "; ".join(f"{a} = {name}" for name, a in WEMATH_CATEGORIES.items())
        return [
            ("WE-MATH problem", "A composite question with its 2 or 3 one-step sub-questions "
             "(525 in testmini); N = the problems every question of which was answered."),
            ("IK (Insufficient Knowledge)", "Some one-step question wrong and the composite "
             "question wrong. Rate IK / N."),
            ("IG (Inadequate Generalization)", "Every one-step question right but the composite "
             "question wrong. Rate IG / N."),
            ("CM (Complete Mastery)", "Strict rule: every one-step question right and the "
             "composite right; loose rule: at least one one-step question right and the "
             "composite right. Rate CM / N."),
            ("RM (Rote Memorization)", "Strict: the composite right but some one-step question "
             "wrong; loose: the composite right with every one-step question wrong. Rate "
             "RM / (RM + CM), the share of composite successes not backed by the steps."),
            ("Score (WE-MATH)", "(alpha IK + beta IG + CM) / N with alpha = 0, beta = 0.5, under "
             "each rule (paper Sec. 3.2). Chance: a uniform guess on every question "
             "(baseline:random on all of testmini) scores 1.62% strict and 10.00% loose."),
            ("S1, S2, S3", f"Accuracy on all one-step questions (S1), and on the composite "
             f"questions of two-step (S2) and three-step (S3) problems. Chance (a uniform guess "
             f"among the options): S1 {c(s1)}, S2 {c(s2)}, S3 {c(s3)}."),
            ("WE-MATH categories", "The 12 second-level knowledge categories of Table 1: the "
             f"unweighted mean of the accuracies of the category's leaf concepts. {abbr}."),
            ("KCA", "Knowledge concept augmentation: the prompt carries the description of the "
             "question's knowledge concepts (setting kca; plain has none). The transition "
             "matrix counts problems by their dimension in each of two runs of one model."),
        ]
