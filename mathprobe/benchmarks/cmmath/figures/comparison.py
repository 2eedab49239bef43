"""CMMaTH's figures, declared once for every report (terminal, `report --json`, compare, the
Markdown artifact, the HTML report): the paper's (Table 4's overall, answer-type and grade-group
accuracies, the visual subjects, knowledge-point mastery SSR@alpha, per-point accuracy) and,
named apart, the authors' (their statics_acc.py: per question type, visual subject and grade
right / (count + 1), printed to one decimal; their SSR over one knowledge point per question),
and the notes on a run (how many answers its grader decided, how the two sets differ). Figures
come from the view `cmmath_figure_units` (sql/cmmath/units/cmmath_figure_units.sql), resampled
by question; an undecided answer counts as not right, as in the views. The plots are in
`figures.plots`."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathprobe.benchmarks.cmmath.figures.plots import plots
from mathprobe.figures import Comparison, Plot, Stat, Table
from mathprobe.reports.format import pct
from mathprobe.store import Store

GRADE_GROUPS = {1: "Elementary", 2: "Junior", 3: "Senior"}
ANSWER_TYPES = {"choice": "Choice", "free_form": "Free-form"}
ALPHAS = (0.1, 0.2, 0.3, 0.6)
DIFFERENCES = (
    "The two sets differ by definition, not by data: the authors' code divides each group's "
    "right answers by its count + 1 (3 right of 3 scores 75.0), groups by grade_id 1..12 and "
    "splits choice questions into single / multi by the reference answer, pools visual subjects "
    "outside its list as UnKnown without counting their right answers, and its SSR counts one "
    "knowledge point per question (the parent of the innermost) with rate right / (count + 1); "
    "the paper's definitions are plain accuracies and SSR over every leaf point of a question.")

CURVE = tuple(k / 10 for k in range(10))          # the paper's SSR@alpha, alpha = 0 ... 0.9
OFFICIAL_CURVE = tuple(k / 10 for k in range(9))  # the authors' thresholds, 0 ... 0.8
QUESTION_TYPES = {"single_choice": "single choice", "multi_choice": "multiple choice",
                  "free_form": "free-form", "choice": "choice"}


def ssr(alpha: float, points: tuple[str, ...]) -> Stat:
    return Stat(f"ssr@{alpha:g}", f"SSR@{alpha:g}", points, how="share_above", alpha=alpha)


def official_ssr(alpha: float, points: tuple[str, ...]) -> Stat:
    """Theirs: a point's rate is right / (count + 1)."""
    return Stat(f"official_ssr@{alpha:g}", f"SSR@{alpha:g}", points, how="share_above",
                alpha=alpha, den_offset=1.0)


def official(breakdown: str, key: str, label: str) -> Stat:
    return Stat(f"official:{breakdown}:{key}", label, (f"official:{breakdown}:{key}",),
                fmt="percent1", den_offset=1.0)


def _chance_level(store: Store) -> str:
    """The chance level over the loaded questions (table item_chance), overall and by type."""
    rows = dict((t, (m, n)) for t, m, n in store.query(
        "SELECT coalesce(i.part, 'all'), avg(c.chance), count(*) FROM item_chance c JOIN items "
        "i USING (benchmark, item_id) WHERE c.benchmark = 'cmmath' GROUP BY ROLLUP (i.part)"))
    if "all" not in rows:
        return ""
    return (f" Over the {rows['all'][1]} questions loaded the chance level is "
            f"{100 * rows['all'][0]:.2f}% ("
            + ", ".join(f"{ANSWER_TYPES.get(t, t)} {100 * m:.2f}%" for t, (m, _) in rows.items()
                        if t != "all") + "; baseline:random answers so, table item_chance).")


class CmmathComparison(Comparison):
    units = "cmmath_figure_units"
    headline = ("all", "accuracy")
    weakest = ("points",)

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        subjects = sorted(c for c in cells if c.startswith("subject:"))
        points = tuple(sorted(c for c in cells if c.startswith("point:")))
        their_points = tuple(sorted(c for c in cells if c.startswith("official_point:")))
        keys: dict[str, list[str]] = {}
        for breakdown, key in store.query("SELECT breakdown, key FROM cmmath_official_keys "
                                          "ORDER BY breakdown, position"):
            keys.setdefault(breakdown, []).append(key)
        return [
            Table("table4", "CMMaTH Table 4 (paper): accuracy overall, by answer type and grade "
                  "group",
                  (Stat("all", "Overall", ("all",)),
                   *(Stat(f"type:{t}", label, (f"type:{t}",)) for t, label in ANSWER_TYPES.items()),
                   *(Stat(f"grade:{g}", label, (f"grade:{g}",))
                     for g, label in GRADE_GROUPS.items())),
                  note="right / all answers; an answer the grader left undecided counts as not "
                       "right", layout="wide"),
            Table("subjects", "CMMaTH accuracy by visual subject (paper)",
                  tuple(Stat(c, c.split(":", 1)[1], (c,)) for c in subjects)),
            Table("ssr", "CMMaTH knowledge-point mastery (paper): SSR@alpha = share of leaf "
                  "points with accuracy > alpha", tuple(ssr(a, points) for a in ALPHAS),
                  note="n = leaf knowledge points with an answer", layout="wide"),
            Table("official-types", "CMMaTH, the authors' scores (statics_acc.py): overall and "
                  "question types",
                  (Stat("official:overall", "Overall", ("all",), fmt="percent1"),
                   *(official("question_type", k, QUESTION_TYPES.get(k, k))
                     for k in keys.get("question_type", []))),
                  note="theirs: a group's score is right / (count + 1); overall right / all; "
                       "printed to one decimal", layout="wide"),
            Table("official-ssr", "CMMaTH, the authors' SSR: share of knowledge points (one per "
                  "question) with right / (count + 1) > alpha",
                  tuple(official_ssr(a, their_points) for a in OFFICIAL_CURVE), layout="wide"),
            Table("official-subjects", "CMMaTH, the authors' scores by visual subject",
                  tuple(official("subject", k, k) for k in keys.get("subject", []))),
            Table("official-grades", "CMMaTH, the authors' scores by grade (grade_id)",
                  tuple(official("grade_id", k, f"grade {k}") for k in keys.get("grade_id", []))),
            Table("ssr-curve", "CMMaTH SSR@alpha (paper) for alpha = 0 ... 0.9",
                  tuple(ssr(a, points) for a in CURVE), detail=True),
            Table("points", "CMMaTH accuracy per leaf knowledge point (paper)",
                  tuple(Stat(c, c.split(":", 1)[1], (c,)) for c in points), detail=True),
        ]

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        return plots(figures, CURVE, OFFICIAL_CURVE, GRADE_GROUPS)

    def notes(self, store: Store, run: Mapping[str, Any], grader: str) -> list[str]:
        """How many answers the grader decided; with any undecided, how they count, what the
        overall accuracy would be were they all right, and what to do; how the two sets of
        figures differ."""
        args = [run["run_id"], grader]
        cov = store.query_dicts("SELECT n_answers, n_decided, n_undecided, coverage "
                                "FROM cmmath_coverage WHERE run_id = ? AND grader = ?", args)
        if not cov:      # a grader with no verdicts in this run, or no answers at all
            (n,), = store.query("SELECT count(*) FROM current_responses WHERE run_id = ? AND "
                                "status IN ('ok', 'refused', 'missing')", [run["run_id"]])
            cov = [{"n_answers": n, "n_decided": 0, "n_undecided": n,
                    "coverage": 0.0 if n else None}]
        c = cov[0]
        text = (f"grader '{grader}': decided {c['n_decided']} of {c['n_answers']} answers"
                + (f" (coverage {pct(c['coverage'])}%)" if c["coverage"] is not None else ""))
        if not c["n_undecided"]:
            return [text + "; none undecided", DIFFERENCES]
        text += f"; {c['n_undecided']} undecided, counted as not right in every figure"
        overall = store.query("SELECT accuracy, accuracy_max FROM cmmath_paper_accuracy WHERE "
                              "run_id = ? AND grader = ? AND answer_type = 'all'", args)
        if overall:
            text += (f" (were they all right, the overall accuracy would be "
                     f"{pct(overall[0][1])}% instead of {pct(overall[0][0])}%)")
        if grader == "rules":
            text += (". Add --judge BACKEND:NAME to have a judge decide them (the authors' "
                     "figures assume every answer judged).")
        elif grader.startswith("judge:"):
            text += (f". This grader judged only what the rules left undecided: "
                     f"'cascade:{grader[len('judge:'):]}' covers every answer.")
        else:
            text += (". They are judge_failed or not yet judged: re-run with --judge and "
                     "--retry-failed.")
        return [text, DIFFERENCES]

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        return [
            ("CMMaTH accuracy (paper)", "Right answers / all answers under the named grader "
             "(rules, or the cascade of rules then the judge); an answer the grader left "
             "undecided counts as not right. Chance: a uniform guess among k options is right "
             "1/k of the time on single-answer choice questions (mostly k = 4), never on "
             "multiple-answer ones; a guessed whole number 0..100 is right 1/101 of the time "
             "where the reference is one whole number 0..100." + _chance_level(store)),
            ("Grade groups", "Elementary (grades 1-6), Junior (7-9), Senior (10-12)."),
            ("Visual subject", "The question's multimodal category (bar chart, plane geometry, "
             "...)."),
            ("SSR@alpha", "Knowledge-point mastery (paper): the share of leaf knowledge points "
             "whose accuracy is strictly above alpha, over the points with an answer; a question "
             "counts toward each of its leaf points. The interval resamples questions."),
            ("CMMaTH, the authors' scores", "As their tool/statics_acc.py computes them: per "
             "question type (choice split by the reference answer into single and multiple), "
             "visual subject and grade (1-12), right / (count + 1), printed x100 to one decimal "
             "(the +1 lowers every group: 3 right of 3 is 75.0); overall right / all. Their SSR "
             "counts each question toward one point (the parent of its innermost knowledge "
             "point), rate right / (count + 1), for alpha = 0 ... 0.8."),
        ]
