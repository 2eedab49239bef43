"""ConceptMath (Wu et al. 2024): bilingual (EN/ZH) word problems under a three-level concept
hierarchy, in four systems (elementary / middle school x English / Chinese), with zero-shot,
chain-of-thought and few-shot settings, concept accuracy at three levels, contamination probes
and concept classification.

Data in `_data`, prompts in `_prompts`, the authors' grader in `_official` and ours in `_strict`
(by name in `_grading`), their result format in `_results`, the probes in `_probes`, the paper's
tables in `_report`; the metrics are the SQL views of `sql/conceptmath/`.
"""
from __future__ import annotations

from pathlib import Path

from tasks.benchmarks.conceptmath._data import (NAME, SYSTEMS, Dataset, concept_path, language,
                                                load, select)
from tasks.benchmarks.conceptmath._grading import GRADERS, grade
from tasks.benchmarks.conceptmath import _probes as probes
from tasks.benchmarks.conceptmath._probes import PROBE_OBJECTS
from tasks.benchmarks.conceptmath._prompts import DEFAULT_SETTING, SETTINGS, build_prompt
from tasks.benchmarks.conceptmath._report import ConceptMathReport
from tasks.benchmarks.conceptmath._results import read_official_results
from tasks.contract import Benchmark, Grade
from tasks.items import Item
from tasks.store.sql import benchmark_sql

DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 1024}        # paper: greedy decoding


class ConceptMath(Benchmark):
    name = NAME
    title = "ConceptMath"
    settings = SETTINGS
    default_setting = DEFAULT_SETTING
    default_params = DEFAULT_PARAMS
    graders = GRADERS
    report = ConceptMathReport()
    probes = PROBE_OBJECTS

    def load(self, data_dir: Path) -> Dataset:
        return load(data_dir)

    def select(self, items, limit: int | None) -> list[Item]:
        return select(items, limit)

    def sql_files(self) -> list[Path]:
        return benchmark_sql(NAME)

    def prompt(self, item: Item, setting: str) -> str:
        return build_prompt(item, setting)

    def grade(self, grader: str, item: Item, response: str | None) -> Grade:
        return grade(grader, item, response)

    def read_official_results(self, path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
        return read_official_results(path, dataset)


benchmark = ConceptMath()

__all__ = ["DEFAULT_PARAMS", "DEFAULT_SETTING", "GRADERS", "NAME", "SETTINGS", "SYSTEMS",
           "ConceptMath", "benchmark", "build_prompt", "concept_path", "grade", "language",
           "load", "probes", "read_official_results", "select"]
