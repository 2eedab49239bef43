"""CMMaTH (Li et al. 2024): Chinese multimodal K12 problems (choice and free-form), graded by a
cascade: rules first (`rules`), then a GradeGPT-style judge for what rules cannot decide, with
accuracy by answer type, grade group and visual subject and knowledge-point mastery SSR@alpha.

Data in `_data` (knowledge points `_points`, options `_options`), prompts in `_prompts`, the rule
grader in `_rules` over the answer extraction (`_extract`, `_text`) and value comparison
(`_values`), the judge's prompt and verdict in `_judge`, its audit against GPT-4's verdicts in
`_audit`, the authors' result format in `_results`, the paper's tables in `_report`, what compare
and the HTML report show in `_compare` and `_plots`; the metrics are the SQL views of
`sql/cmmath/`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from tasks.benchmarks.cmmath import _audit as audit
from tasks.benchmarks.cmmath._audit import audit_rules, run_judge_audit, sample_path
from tasks.benchmarks.cmmath._compare import CmmathComparison
from tasks.benchmarks.cmmath._data import (NAME, CmmathItem, Dataset, load, reference_tables,
                                           select)
from tasks.benchmarks.cmmath._judge import JUDGE_PARAMS, judge_prompt, parse_verdict
from tasks.benchmarks.cmmath._options import gold_letters, option_letters, option_texts
from tasks.benchmarks.cmmath._points import PointSyntaxError, item_points, parse_points
from tasks.benchmarks.cmmath._prompts import (DEFAULT_SETTING, SETTINGS, build_prompt,
                                              parse_setting, request_image)
from tasks.benchmarks.cmmath._report import build as build_report
from tasks.benchmarks.cmmath._report import figures, render
from tasks.benchmarks.cmmath._results import read_official_results
from tasks.benchmarks.cmmath._rules import GRADERS, grade
from tasks.contract import Benchmark, FunctionReport, Judge
from tasks.items import Item
from tasks.store import Store

DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 2048}


class CmmathJudge(Judge):
    """The GradeGPT-style judge of the answers the rule grader leaves undecided."""
    rules_grader = "rules"
    params = JUDGE_PARAMS

    def prompt(self, item: Item, response: str | None) -> tuple[str, str]:
        return judge_prompt(item.payload.get("question", item.question),
                            str(item.payload.get("answer", item.gold)), response)

    def parse(self, text: str | None) -> bool | None:
        return parse_verdict(text)

    def audit(self, store: Store, data_dir: Path, *, audit_id: str, judge: str | None,
              concurrency: int, limit: int | None) -> list[dict[str, Any]]:
        """The rule stage, and with `judge` that judge and the cascade, against GPT-4's verdicts
        on the authors' GradeGPT judgment sample (`judge_agreement` rows)."""
        rows = [audit_rules(store, audit_id, sample_path(data_dir))]
        if judge:
            rows += run_judge_audit(store, judge, audit_id, concurrency=concurrency, limit=limit)
        return rows


class Cmmath(Benchmark):
    name = NAME
    title = "CMMaTH"
    settings = SETTINGS
    default_setting = DEFAULT_SETTING
    default_params = DEFAULT_PARAMS
    graders = GRADERS
    report = FunctionReport(build_report, render, figures)
    judge = CmmathJudge()
    comparison = CmmathComparison()

    load = staticmethod(load)
    select = staticmethod(select)
    reference_tables = staticmethod(reference_tables)
    prompt = staticmethod(build_prompt)
    request_image = staticmethod(request_image)
    grade = staticmethod(grade)
    read_official_results = staticmethod(read_official_results)


benchmark = Cmmath()

__all__ = ["DEFAULT_PARAMS", "Dataset", "DEFAULT_SETTING", "GRADERS", "JUDGE_PARAMS", "NAME", "SETTINGS",
           "Cmmath", "CmmathItem", "CmmathJudge", "PointSyntaxError", "audit", "benchmark",
           "build_prompt", "gold_letters", "grade", "item_points", "judge_prompt", "load",
           "option_letters", "option_texts", "parse_points", "parse_setting", "parse_verdict",
           "read_official_results", "select"]
