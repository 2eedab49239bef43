"""ConceptMath's figures, declared once for every report (terminal, `report --json`, compare, the
Markdown artifact, the HTML report): the paper's Table 2 (one row per model, systems x prompt
settings, and their average), accuracy per system, concept accuracy at the three levels with the
unmastered concepts marked, the contamination (Table 3) and classification figures of probe
runs, and the notes on a run (its grader, the graders' disagreement, its unmastered concepts).
Figures come from the view `conceptmath_figure_units`
(sql/conceptmath/units/conceptmath_figure_units.sql), resampled by problem."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mathprobe.figures import Comparison, Plot, Ranking, Section, Stat, Table
from mathprobe.reports.format import pct
from mathprobe.store import Store

# The paper's column order and labels (Table 2).
SYSTEMS = {"element_en": "Elementary-EN", "middle_en": "Middle-EN",
           "element_zh": "Elementary-ZH", "middle_zh": "Middle-ZH"}
SETTINGS = {"zs": "ZS", "zs-cot": "ZS-CoT", "fs": "FS"}
GRADER_NOTES = {
    "official": "the authors' grader (lenient: any number after the answer phrase may match, "
                "within |gold|/20 below 20, else 1); the official figures",
    "strict": "final answer only, exact equivalence (math-verify); not the paper's figures",
}
N_UNMASTERED = 10
PROBE_NOTES = {
    "contamination-rouge": "Rouge-L F of the continuation of each question's first half (given as "
                           "is to a completion endpoint) against its true second half, x100 as "
                           "the paper's Table 3 (view contamination_rouge). Higher: more likely "
                           "seen.",
    "contamination-mink": "MIN-K% (K = 10%): the mean log-probability of the question's least "
                          "likely tokens (Shi et al.'s definition); exp MIN-K% = the same on the "
                          "probability scale (0, 1], averaged over questions (view "
                          "contamination_mink). Higher: more likely seen.",
    "classify": "MRR and top-1 of the true level-2 concept; open models rank the concepts "
                "(options A, B, ...) by each label's likelihood, API models give a ranked list "
                "(view conceptmath_classification).",
}


def unmastered_min_n(store: Store) -> int:
    """The fewest graded problems a concept needs to be called unmastered (the view's)."""
    return int(store.query("SELECT conceptmath_unmastered_min_n()")[0][0])

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
                  sys_stats, rows="model", layout="wide",
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
            row_systems = [s.key.split(":")[1] for s in found]
            groups = tuple((SYSTEMS.get(sy, sy), row_systems.count(sy))
                           for sy in dict.fromkeys(row_systems))
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

    def notes(self, store: Store, run: Mapping[str, Any], grader: str) -> list[str]:
        """A probe run: what its figures are. An answered run: what its grader is, how the graders
        differ on it, how many cells Table 2's average is over, and its unmastered concepts."""
        if run["setting"] in PROBE_NOTES:
            return [PROBE_NOTES[run["setting"]]]
        rid = run["run_id"]
        out = [f"grader {grader}: {GRADER_NOTES[grader]}"] if grader in GRADER_NOTES else []
        graders = store.query("SELECT grader, accuracy FROM conceptmath_run_accuracy "
                              "WHERE run_id = ? ORDER BY grader", [rid])
        if len(graders) > 1:
            (official_only, strict_only), = store.query(
                "SELECT count(*) FILTER (official), count(*) FILTER (strict) "
                "FROM conceptmath_grader_disagreement WHERE run_id = ?", [rid])
            out.append("overall accuracy by grader: " + ", ".join(f"{g} {pct(a)}"
                                                                 for g, a in graders)
                       + f"; they disagree on {official_only} (official only right) + "
                         f"{strict_only} (strict only right) problems (view "
                         "conceptmath_grader_disagreement)")
        # the run's own cells: its report is its figures alone (the model's other settings
        # are its other runs, side by side in `compare`)
        (n_cells,), = store.query("SELECT count(*) FROM conceptmath_accuracy WHERE run_id = ? "
                                  "AND grader = ?", [rid, grader])
        if n_cells < len(SYSTEMS) * len(SETTINGS):
            out.append(f"Table 2's Avg. is over the {n_cells} cell(s) of this run, its setting "
                       f"{SETTINGS.get(run['setting'], run['setting'])} (the paper's is over all "
                       f"{len(SYSTEMS) * len(SETTINGS)}: 4 systems x 3 settings; compare the "
                       "model's runs to see its other settings)")
        low: dict[str, list[str]] = {}
        for system, concept, n, acc in store.query(
                "SELECT system, concept, n, accuracy FROM conceptmath_unmastered WHERE run_id = ? "
                "AND grader = ? AND level = 3 AND rank <= ? ORDER BY system, rank",
                [rid, grader, N_UNMASTERED]):
            low.setdefault(system, []).append(f"{concept} {pct(acc)}% (n={n})")
        out += [f"unmastered in {SYSTEMS.get(s, s)} (the {N_UNMASTERED} lowest level-3 concepts "
                f"of those with at least {unmastered_min_n(store)} graded problems, lowest first; "
                f"view conceptmath_unmastered): " + "; ".join(low[s])
                for s in sorted(low, key=lambda s: (list(SYSTEMS).index(s) if s in SYSTEMS
                                                    else len(SYSTEMS), s))]
        return out

    def sections(self, store: Store, runs: Sequence[Mapping[str, Any]]) -> list[Section]:
        """Paper Table 5 of each answered run against the baseline (the first): the targeted
        improvement on the baseline's weakest concepts (targeted.table5)."""
        from mathprobe.benchmarks.conceptmath.targeted import table5

        answered = [r for r in runs if r.get("setting") not in PROBE_NOTES and r.get("grader")]
        if not answered or answered[0] is not runs[0]:
            return []
        return table5.sections(store, answered, SYSTEMS, N_UNMASTERED)

    def rankings(self, store: Store, runs: Sequence[Mapping[str, Any]]) -> list[Ranking]:
        """Each answered run's weakest level-3 concepts per system (the paper's targeted
        improvement starts from them): mathprobe.benchmarks.conceptmath.targeted.weakest."""
        from mathprobe.benchmarks.conceptmath.targeted import weakest

        answered = [r for r in runs if r.get("setting") not in PROBE_NOTES and r.get("grader")]
        return weakest.rankings(store, answered, SYSTEMS, N_UNMASTERED)

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
