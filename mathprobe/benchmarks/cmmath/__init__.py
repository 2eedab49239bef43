"""CMMaTH (Li et al. 2024): Chinese multimodal K12 problems (choice and free-form), asked with
the published prompts and graded by a cascade: rules first (`rules`), then a judge for what
rules cannot decide (the authors' GPT-4 judge prompt, or GradeGPT's chat format); figures both
as the authors' code computes them and as the paper defines them, over all answers.

Data in `data/` (the records and item model `data.dataset`, knowledge points, options, the
published texts of the data directory, the authors' result format with their judge's verdicts
`data.official_results`), prompts in `_prompts`; grading in `grading/` (`GRADERS` and `grade`):
the rule stage `grading.rules` and what it reads (each module named for it: extraction,
reference answer, parts, final statement, ..., answer values, mentioned numbers), measured on
worked solutions and judged real responses by `grading.rule_agreement`; the judge's prompts
and verdict rules in `grading.judge` (the authors' GPT-4 prompt in
`grading.judge_prompt_authors`), its audit against GPT-4's verdicts in `grading.judge_audit`;
its figures in `figures/` (the tables and notes every report draws `figures.comparison`, the
HTML report's plots `figures.plots`), a chance guess in `_chance`; the
metrics are the SQL views of `sql/cmmath/` (cmmath_paper_*, cmmath_official_*).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.cmmath._chance import chance_answer, chance_level
from mathprobe.benchmarks.cmmath._prompts import (
    DEFAULT_SETTING,
    SETTINGS,
    build_prompt,
    parse_setting,
    request_image,
)
from mathprobe.benchmarks.cmmath.data.dataset import (
    NAME,
    STRATA,
    CmmathItem,
    Dataset,
    load,
    reference_tables,
    strata,
)
from mathprobe.benchmarks.cmmath.data.knowledge_points import (
    PointSyntaxError,
    item_points,
    parse_points,
)
from mathprobe.benchmarks.cmmath.data.official_results import imported_tables, read_official_results
from mathprobe.benchmarks.cmmath.data.options import gold_letters, option_letters, option_texts
from mathprobe.benchmarks.cmmath.data.published_texts import published
from mathprobe.benchmarks.cmmath.error_types import TAXONOMY as ERROR_TAXONOMY
from mathprobe.benchmarks.cmmath.figures.comparison import CmmathComparison
from mathprobe.benchmarks.cmmath.grading import GRADERS, grade
from mathprobe.benchmarks.cmmath.grading import judge_audit as audit
from mathprobe.benchmarks.cmmath.grading.judge import (
    JUDGE_PARAMS,
    PROMPT_FORMATS,
    VERDICT_PARSERS,
    VERDICT_RULES,
    judge_prompt,
    parse_verdict,
    parse_verdict_official,
)
from mathprobe.benchmarks.cmmath.grading.judge_audit import (
    audit_rules,
    run_judge_audit,
    sample_path,
)
from mathprobe.contract import Benchmark, Judge
from mathprobe.errors import MathprobeError
from mathprobe.items import Item
from mathprobe.store import Store

# The paper's sampling (Table 13; prompts_published.json's sampling_table13, which a test checks).
DEFAULT_PARAMS = {"temperature": 0.2, "max_tokens": 2048}


class CmmathJudge(Judge):
    """The judge of the answers the rule grader leaves undecided: by default the authors' GPT-4
    judge prompt with our strict verdict rule; `--judge BACKEND:NAME#prompt=gradegpt` for a
    served GradeGPT checkpoint (its chat format), `#verdict=official` for the authors' rule
    ("Yes" anywhere in the reply). See `grading.judge`."""
    rules_grader = "rules"
    params = JUDGE_PARAMS

    def __init__(self, prompt_format: str = "gpt4", verdict: str = "strict"):
        self.prompt_format, self.verdict = prompt_format, verdict

    def configured(self, options: Mapping[str, str]) -> CmmathJudge:
        allowed = {"prompt": PROMPT_FORMATS, "verdict": VERDICT_RULES}
        for key, value in options.items():
            if key not in allowed:
                raise MathprobeError(f"--judge: unknown CMMaTH judge option {key!r}; options: "
                                     "prompt=gpt4|gradegpt, verdict=strict|official")
            if value not in allowed[key]:
                raise MathprobeError(f"--judge: {key}={value!r}; choose from "
                                     f"{', '.join(allowed[key])}")
        return CmmathJudge(options.get("prompt", self.prompt_format),
                           options.get("verdict", self.verdict))

    def messages(self, question: str, reference: str, response: str | None,
                 data_dir: str | Path = "") -> tuple[str | None, str]:
        texts = published(data_dir) if self.prompt_format == "gradegpt" else None
        return judge_prompt(question, reference, response, self.prompt_format, texts)

    def prompt(self, item: Item, response: str | None) -> tuple[str | None, str]:
        return self.messages(item.payload.get("question", item.question),
                             str(item.payload.get("answer", item.gold)), response,
                             getattr(item, "data_dir", ""))

    def parse(self, text: str | None) -> bool | None:
        return VERDICT_PARSERS[self.verdict](text)

    def audit(self, store: Store, data_dir: Path, *, audit_id: str, judge: str | None,
              concurrency: int, limit: int | None) -> list[dict[str, Any]]:
        """The rule stage, and with `judge` that judge and the cascade, against GPT-4's verdicts
        on the authors' GradeGPT judgment sample (`judge_agreement` rows)."""
        rows = [audit_rules(store, audit_id, sample_path(data_dir))]
        if judge:
            from mathprobe.runs.judging import judge_options

            rows += run_judge_audit(store, judge, audit_id, spec=self.configured(judge_options(judge)),
                                    data_dir=data_dir, concurrency=concurrency, limit=limit)
        return rows


class Cmmath(Benchmark[Dataset]):
    name = NAME
    title = "CMMaTH"
    settings = SETTINGS
    default_setting = DEFAULT_SETTING
    default_params = DEFAULT_PARAMS
    graders = GRADERS
    judge = CmmathJudge()
    comparison = CmmathComparison()
    error_taxonomy = ERROR_TAXONOMY       # why its answers fail (error_types)

    strata_names = STRATA

    load = staticmethod(load)
    strata = staticmethod(strata)
    reference_tables = staticmethod(reference_tables)
    prompt = staticmethod(build_prompt)
    request_image = staticmethod(request_image)
    grade = staticmethod(grade)
    read_official_results = staticmethod(read_official_results)
    imported_tables = staticmethod(imported_tables)
    chance_answer = staticmethod(chance_answer)
    chance_level = staticmethod(chance_level)


benchmark = Cmmath()
select = benchmark.select            # the --limit subset (a seeded stratified sample)

__all__ = ["DEFAULT_PARAMS", "Dataset", "DEFAULT_SETTING", "GRADERS", "JUDGE_PARAMS", "NAME", "SETTINGS",
           "Cmmath", "CmmathItem", "CmmathJudge", "PointSyntaxError", "audit", "benchmark",
           "build_prompt", "gold_letters", "grade", "item_points", "judge_prompt", "load",
           "option_letters", "option_texts", "parse_points", "parse_setting", "parse_verdict",
           "parse_verdict_official", "published", "read_official_results", "select"]
