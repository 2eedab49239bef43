"""WE-MATH (Qiao et al. 2024): visual multiple-choice problems decomposed into one-step
sub-problems, scored by the four-dimensional metric (IK / IG / CM / RM) under the strict and
loose rules, step accuracy and the 12 knowledge categories.

Data and validation in `data.dataset`, prompts in `_prompts`, grading in `grading/`: the
authors' answer extraction in `grading.official` and VLMEvalKit's judged extractor for what it
cannot read in `grading.judge`; results made elsewhere in `data/` (the authors' format
`data.official_results`, VLMEvalKit's and lmms-eval's), the authors' leaderboard submission in
`_leaderboard`, its figures (the paper's tables, plots and notes every report draws) declared in
`figures`, a chance guess in `_chance`; the metrics are the SQL views of `sql/wemath/`.
"""
from __future__ import annotations

from typing import Any, ClassVar

from mathprobe.benchmarks.wemath._chance import chance_answer, chance_level
from mathprobe.benchmarks.wemath._leaderboard import write_leaderboard
from mathprobe.benchmarks.wemath._prompts import DEFAULT_SETTING, SETTINGS, build_prompt
from mathprobe.benchmarks.wemath.data.dataset import (
    NAME,
    STRATA,
    Dataset,
    WemathItem,
    item_id,
    load,
    option_letters,
    reference_tables,
    sample_unit,
    strata,
)
from mathprobe.benchmarks.wemath.data.lmms_eval_results import read_lmms_eval
from mathprobe.benchmarks.wemath.data.official_results import read_official_results
from mathprobe.benchmarks.wemath.data.vlmevalkit_results import read_vlmevalkit, write_score_csv
from mathprobe.benchmarks.wemath.error_types import TAXONOMY as ERROR_TAXONOMY
from mathprobe.benchmarks.wemath.figures import WeMathComparison
from mathprobe.benchmarks.wemath.grading import GRADERS, answer_outside, extract_official, grade
from mathprobe.benchmarks.wemath.grading.judge import WemathJudge
from mathprobe.contract import Benchmark
from mathprobe.items import Item

DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 1024}   # paper: greedy, 1024 new tokens


class WeMath(Benchmark[Dataset]):
    name = NAME
    title = "WE-MATH"
    settings = SETTINGS
    default_setting = DEFAULT_SETTING
    default_params = DEFAULT_PARAMS
    graders = GRADERS
    demo: ClassVar[dict[str, Any]] = {
        "model": "baseline:random", "setting": DEFAULT_SETTING,
        "query": "SELECT rule, n, ik, ig, cm, rm, round(score, 4) AS score "
                 "FROM wemath_four_dimensional WHERE run_id = '{run_id}'"}
    comparison = WeMathComparison()
    judge = WemathJudge()          # VLMEvalKit's judged extractor, beside the official one
    error_taxonomy = ERROR_TAXONOMY       # why its answers fail (error_types)

    strata_names = STRATA

    load = staticmethod(load)
    strata = staticmethod(strata)
    sample_unit = staticmethod(sample_unit)
    reference_tables = staticmethod(reference_tables)
    prompt = staticmethod(build_prompt)
    grade = staticmethod(grade)
    read_official_results = staticmethod(read_official_results)
    answer_outside = staticmethod(answer_outside)
    chance_answer = staticmethod(chance_answer)
    chance_level = staticmethod(chance_level)

    def result_formats(self):
        """The authors' result JSON, VLMEvalKit's predictions / judged files, lmms-eval's
        samples JSONL."""
        return {"official": read_official_results, "vlmevalkit": read_vlmevalkit,
                "lmms-eval": read_lmms_eval}

    def exports(self):
        """The authors' leaderboard submission (result JSON and score CSVs), VLMEvalKit's score
        CSV."""
        return {"leaderboard": write_leaderboard, "vlmevalkit": write_score_csv}

    def shown_question(self, item: Item) -> str:
        """The question and its options, as the prompt gives them."""
        return f"{item.question}\nOption: {item.payload.get('option', '')}"


benchmark = WeMath()
select = benchmark.select            # the --limit subset (a seeded stratified sample)

__all__ = ["DEFAULT_PARAMS", "Dataset", "DEFAULT_SETTING", "GRADERS", "NAME", "SETTINGS", "WeMath",
           "benchmark", "build_prompt", "extract_official", "grade", "item_id", "load",
           "option_letters", "read_official_results", "select", "WemathItem", "WemathJudge"]
