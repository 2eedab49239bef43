"""ConceptMath (Wu et al. 2024): bilingual (EN/ZH) word problems under a three-level concept
hierarchy, in four systems (elementary / middle school x English / Chinese), with zero-shot,
chain-of-thought and few-shot settings, concept accuracy at three levels, contamination probes
and concept classification.

Data in `data.dataset`, prompts in `_prompts`, grading in `grading/` (`GRADERS` and `grade`):
the authors' grader in `grading.official` and ours in `grading.strict`; their result format in
`data.official_results`, the probes in `_probes`, its figures (the paper's tables, plots and
notes every report draws) declared in `figures`, a chance guess in `_chance`; the metrics are
the SQL views of `sql/conceptmath/`.
"""
from __future__ import annotations

from mathprobe.benchmarks.conceptmath import _probes as probes
from mathprobe.benchmarks.conceptmath._chance import chance_answer, chance_level
from mathprobe.benchmarks.conceptmath._probes import PROBE_OBJECTS
from mathprobe.benchmarks.conceptmath._prompts import DEFAULT_SETTING, SETTINGS, build_prompt
from mathprobe.benchmarks.conceptmath.data.dataset import (
    NAME,
    STRATA,
    SYSTEMS,
    Dataset,
    concept_path,
    language,
    load,
    reference_tables,
    strata,
)
from mathprobe.benchmarks.conceptmath.data.official_results import read_official_results
from mathprobe.benchmarks.conceptmath.error_types import TAXONOMY as ERROR_TAXONOMY
from mathprobe.benchmarks.conceptmath.figures import ConceptMathComparison
from mathprobe.benchmarks.conceptmath.grading import GRADERS, grade
from mathprobe.contract import Benchmark

DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 1024}        # paper: greedy decoding


class ConceptMath(Benchmark[Dataset]):
    name = NAME
    title = "ConceptMath"
    settings = SETTINGS
    default_setting = DEFAULT_SETTING
    default_params = DEFAULT_PARAMS
    graders = GRADERS
    probes = PROBE_OBJECTS
    comparison = ConceptMathComparison()
    error_taxonomy = ERROR_TAXONOMY       # why its answers fail (error_types)

    strata_names = STRATA

    load = staticmethod(load)
    strata = staticmethod(strata)
    reference_tables = staticmethod(reference_tables)
    prompt = staticmethod(build_prompt)
    grade = staticmethod(grade)
    read_official_results = staticmethod(read_official_results)
    chance_answer = staticmethod(chance_answer)
    chance_level = staticmethod(chance_level)

    def select_data(self, store, data_dir, options, progress):
        """Training data for a run's weakest concepts (Sec. 2.4): targeted.command."""
        from mathprobe.benchmarks.conceptmath.targeted.command import select_data

        return select_data(store, data_dir, options, progress)


benchmark = ConceptMath()
select = benchmark.select            # the --limit subset (a seeded stratified sample)

__all__ = ["DEFAULT_PARAMS", "Dataset", "DEFAULT_SETTING", "GRADERS", "NAME", "SETTINGS", "SYSTEMS",
           "ConceptMath", "benchmark", "build_prompt", "concept_path", "grade", "language",
           "load", "probes", "read_official_results", "select"]
