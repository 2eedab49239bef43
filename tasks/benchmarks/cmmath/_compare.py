"""CMMaTH compared across runs, on today's views (the paper's definitions): Table 4's overall,
answer-type and grade-group accuracies, the visual subjects, knowledge-point mastery SSR@alpha
(the paper's alphas, and the whole curve for the plot) and per-point accuracy. Figures come from
the view `cmmath_figure_units` (sql/cmmath/60_compare.sql), resampled by question; the plots are
in `_plots`.

Kept apart from `_report` on purpose: the authors' official scores (their statics_acc.py) are
being added beside the paper's figures; they join here as tables of their own.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tasks.benchmarks.cmmath._plots import plots
from tasks.benchmarks.cmmath._report import ALPHAS, ANSWER_TYPES, GRADE_GROUPS
from tasks.contract import Comparison, Plot, Stat, Table
from tasks.store import Store

CURVE = tuple(k / 10 for k in range(10))          # SSR@alpha for alpha = 0, 0.1, ..., 0.9


def ssr(alpha: float, points: tuple[str, ...]) -> Stat:
    return Stat(f"ssr@{alpha:g}", f"SSR@{alpha:g}", points, how="share_above", alpha=alpha)


class CmmathComparison(Comparison):
    units = "cmmath_figure_units"
    headline = ("all", "accuracy")
    weakest = ("points",)

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        subjects = sorted(c for c in cells if c.startswith("subject:"))
        points = tuple(sorted(c for c in cells if c.startswith("point:")))
        return [
            Table("table4", "CMMaTH Table 4: accuracy overall, by answer type and grade group",
                  (Stat("all", "Overall", ("all",)),
                   *(Stat(f"type:{t}", label, (f"type:{t}",)) for t, label in ANSWER_TYPES.items()),
                   *(Stat(f"grade:{g}", label, (f"grade:{g}",))
                     for g, label in GRADE_GROUPS.items()))),
            Table("subjects", "CMMaTH accuracy by visual subject",
                  tuple(Stat(c, c.split(":", 1)[1], (c,)) for c in subjects)),
            Table("ssr", "CMMaTH knowledge-point mastery: SSR@alpha (share of points with "
                  "accuracy > alpha)", tuple(ssr(a, points) for a in ALPHAS),
                  note="n = knowledge points with a graded question"),
            Table("ssr-curve", "CMMaTH SSR@alpha for alpha = 0 ... 0.9",
                  tuple(ssr(a, points) for a in CURVE), detail=True),
            Table("points", "CMMaTH accuracy per knowledge point",
                  tuple(Stat(c, c.split(":", 1)[1], (c,)) for c in points), detail=True),
        ]

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        return plots(figures, CURVE)

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        return [
            ("CMMaTH accuracy", "Right answers / graded answers under the named grader (rules, "
             "or the cascade of rules then the judge); an answer the grader left undecided is "
             "in no figure. Chance: a uniform guess among k options is right 1/k of the time "
             "on single-answer choice questions (mostly k = 4); none for free-form."),
            ("Grade groups", "Elementary (grades 1-6), Junior (7-9), Senior (10-12)."),
            ("Visual subject", "The question's multimodal category (bar chart, plane geometry, "
             "...)."),
            ("SSR@alpha", "Knowledge-point mastery (paper): the share of knowledge points whose "
             "accuracy is strictly above alpha, over the points with a graded question; a "
             "question counts toward each of its leaf points. The interval resamples "
             "questions."),
        ]
