"""ConceptMath compared across runs: the paper's Table 2 (one row per model, systems x prompt
settings, and their average), accuracy per system, concept accuracy at the three levels with the
unmastered concepts marked, and the contamination (Table 3) and classification figures of probe
runs. Figures come from the view `conceptmath_figure_units` (sql/conceptmath/30_compare.sql),
resampled by problem."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathprobe.tasks.benchmarks.conceptmath._report import (N_UNMASTERED, SETTINGS, SYSTEMS,
                                                            unmastered_min_n)
from mathprobe.tasks.contract import Comparison, Plot, Stat, Table
from mathprobe.tasks.store import Store

LEVELS = (1, 2, 3)
CONTAMINATION = ("rouge", "mink", "mink_prob")
SHORT = {"element_en": "E-EN", "middle_en": "M-EN", "element_zh": "E-ZH", "middle_zh": "M-ZH"}


def _systems(cells: set[str], prefix: str) -> list[str]:
    present = {c[len(prefix):] for c in cells if c.startswith(prefix)}
    return [s for s in SYSTEMS if s in present] + sorted(present - set(SYSTEMS))


def _concept_stats(cells: set[str], level: int) -> tuple[Stat, ...]:
    """The level's concepts, by system in the paper's order, then by name."""
    prefix = f"L{level}:"
    order = {s: i for i, s in enumerate(SHORT)}
    found = sorted((c for c in cells if c.startswith(prefix)),
                   key=lambda c: (order.get(c.split(":")[1], 9), c))
    return tuple(Stat(c, f"[{SHORT.get(c.split(':')[1], c.split(':')[1])}] "
                         f"{c.split(':', 2)[2]}", (c,)) for c in found)


def _chance_note(store: Store) -> str:
    """The chance level of the official grader (table item_chance), overall and per system."""
    rows = store.query("SELECT i.group_id, avg(c.chance), count(*) FROM item_chance c "
                       "JOIN items i USING (benchmark, item_id) WHERE c.benchmark = "
                       "'conceptmath' GROUP BY ALL")
    if not rows:
        return "Chance level: not computed in this store (it is when data is loaded)."
    total = sum(m * n for _, m, n in rows) / sum(n for _, _, n in rows)
    by = {s: m for s, m, _ in rows}
    return ("Chance: baseline:random guesses a whole number 0..100, written as the authors' "
            "answers end ('Therefore, the answer is 57.'); the official grader calls such a "
            f"guess right {100 * total:.2f}% of the time on all {sum(n for *_, n in rows)} "
            "problems (" + ", ".join(f"{SHORT.get(s, s)} {100 * by[s]:.2f}%"
                                     for s in SYSTEMS if s in by)
            + "; within its tolerance of the gold: 1 guess in 101 below 20, 3 from 20 up; "
            "table item_chance).")


class ConceptMathComparison(Comparison):
    units = "conceptmath_figure_units"
    headline = ("all", "accuracy")
    weakest = ("concepts-l3",)

    def tables(self, store: Store, cells: set[str]) -> list[Table]:
        systems = _systems(cells, "system:")
        sys_stats = tuple(Stat(f"system:{s}", SYSTEMS.get(s, s), (f"system:{s}",))
                          for s in systems)
        out = [
            Table("table2", "ConceptMath Table 2: accuracy per system and prompt setting",
                  sys_stats, rows="model",
                  note="one row per model: its latest compared run of each setting; Avg. = "
                       "the mean of the row's cells (the paper's over 4 systems x 3 settings)"),
            Table("accuracy", "ConceptMath accuracy per run",
                  (Stat("all", "All", ("all",)), *sys_stats)),
            *(Table(f"concepts-l{level}", f"ConceptMath concept accuracy, level {level}",
                    _concept_stats(cells, level), detail=True) for level in LEVELS),
        ]

        def per_system(prefix: str, label: str, fmt: str) -> tuple[Stat, ...]:
            # contamination has no better side; MIN-K% (a mean log-probability) is unbounded
            return tuple(Stat(f"{prefix}:{s}", f"{label} {SYSTEMS.get(s, s)}", (f"{prefix}:{s}",),
                              fmt=fmt, counted=prefix == "top1", bounded=prefix != "mink",
                              better=None if prefix in CONTAMINATION else "higher")
                         for s in _systems(cells, f"{prefix}:"))
        out += [
            Table("contamination-rouge", "ConceptMath contamination (Table 3, Rouge): Rouge-L "
                  "of the continued second half, x100", per_system("rouge", "Rouge-L", "x100")),
            Table("contamination-mink", "ConceptMath contamination (Table 3, Prob): MIN-K% "
                  "(K = 10%)", per_system("mink", "MIN-K%", "number")
                  + per_system("mink_prob", "exp MIN-K%", "number")),
            Table("classification", "ConceptMath concept classification (MRR, top-1)",
                  per_system("mrr", "MRR", "number") + per_system("top1", "top-1", "percent")),
        ]
        return out

    def plots(self, store: Store, figures: Mapping[str, Mapping[str, Any]],
              runs: Sequence[Mapping[str, Any]]) -> list[Plot]:
        cells = {k for f in figures.values() for k in f}
        systems = [(SYSTEMS.get(s, s), f"system:{s}") for s in _systems(cells, "system:")]
        out = []
        if systems:
            out.append(Plot("conceptmath-systems", "Accuracy per system", "bars",
                            (("All", "all"), *systems), ylabel="accuracy"))
        ids = [r["run_id"] for r in runs]
        # unmastered: the lowest of each run, system and level (conceptmath_unmastered), the
        # report's 10 at level 3; at levels 1 and 2, which have few concepts, the lowest fifth
        marked = store.query(
            "SELECT u.run_id, u.level, u.system, u.concept FROM conceptmath_unmastered u "
            "JOIN (SELECT unnest(?::VARCHAR[]) AS run_id, unnest(?::VARCHAR[]) AS grader) s "
            "ON s.run_id = u.run_id AND s.grader = u.grader "
            "QUALIFY u.rank <= least(?, greatest(1, ceil(count(*) OVER (PARTITION BY u.run_id, "
            "u.level, u.system) / 5))) OR (u.level = 3 AND u.rank <= ?)",
            [ids, [r["grader"] for r in runs], N_UNMASTERED, N_UNMASTERED]) if ids else []
        for level in LEVELS:
            found = _concept_stats(cells, level)
            if not found:
                continue
            # headed by system, each row its concept path (the label without its [system])
            series = tuple((s.key.split(":", 2)[2], s.key) for s in found)
            systems = [s.key.split(":")[1] for s in found]
            groups = tuple((SYSTEMS.get(sy, sy), systems.count(sy))
                           for sy in dict.fromkeys(systems))
            marks: dict[str, set[str]] = {}
            for run_id, lv, system, concept in marked:
                if lv == level:
                    marks.setdefault(run_id, set()).add(f"L{level}:{system}:{concept}")
            out.append(Plot(f"conceptmath-concepts-l{level}",
                            f"Concept accuracy, level {level}", "dots", series,
                            xlabel="accuracy", groups=groups,
                            marked="unmastered: the " + (f"{N_UNMASTERED} lowest" if level == 3
                                                         else "lowest fifth") + " per system",
                            marks={k: frozenset(v) for k, v in marks.items()}))
        for prefix, title, label, scale in (
                ("rouge", "Contamination: Rouge-L (x100) per system", "Rouge-L x100", 100.0),
                ("mink_prob", "Contamination: exp MIN-K% per system", "exp MIN-K%", 1.0)):
            series = tuple((SYSTEMS.get(s, s), f"{prefix}:{s}")
                           for s in _systems(cells, f"{prefix}:"))
            if series:
                out.append(Plot(f"conceptmath-{prefix}", title, "bars", series, ylabel=label,
                                scale=scale, unit=""))
        return out

    def glossary(self, store: Store) -> list[tuple[str, str]]:
        return [
            ("ConceptMath systems", "Elementary-EN, Middle-EN, Elementary-ZH, Middle-ZH: the four "
             "problem sets (4011 problems); settings " + ", ".join(
                 f"{v} ({k})" for k, v in SETTINGS.items())
             + ": zero-shot, zero-shot chain-of-thought, the authors' 5-shot chat."),
            ("ConceptMath accuracy", "Right answers / graded problems, under the named grader "
             "(official: the authors' lenient number match; strict: the final answer only). "
             + _chance_note(store)),
            ("Concept accuracy (levels 1-3)", "Accuracy of the problems under a concept path "
             "cate0, cate0/cate1, cate0/cate1/cate2, per system. Unmastered: the "
             f"{N_UNMASTERED} lowest per system at level 3 (the lowest fifth at levels 1 and 2), "
             f"among the concepts with at least {unmastered_min_n(store)} graded problems: "
             "fewer say nothing (1 of 2 right is 50% [9, 91]); view conceptmath_unmastered."),
            ("Table 2 Avg.", "The unweighted mean of a model's cells (systems x settings); its "
             "interval resamples the problems of all its runs jointly."),
            ("Rouge-L (contamination)", "Rouge-L F of the model's continuation of a question's "
             "first half against the true second half, x100 as the paper's Table 3; higher: "
             "more likely seen in training."),
            ("MIN-K%", "The mean log-probability of the 10% least likely tokens of the question "
             "(Shi et al. 2023); exp MIN-K% is the same on the probability scale. Higher: more "
             "likely seen."),
            ("MRR, top-1", "Concept classification: mean reciprocal rank of the true level-2 "
             "concept in the model's ranking, and the share ranked first."),
        ]
