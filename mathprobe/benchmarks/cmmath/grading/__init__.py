"""CMMaTH's grading, a cascade: the rule stage first (`rules`: GRADERS and `grade`), then a judge
for what rules leave undecided (`judge`: its prompt formats and verdict rules, the authors'
GPT-4 prompt in `judge_prompt_authors`; `judge_audit`: a grader against GPT-4's verdicts).

What the rules read, each in its module: where a response states its answer (`extraction`,
over `response_text`'s splitting and cleaning), the reference answer's structure
(`reference_answer`), answers in several parts (`multipart`), the final statement's values
(`final_statement`), what else a response states (`stated_elsewhere`), what a choice answer
names beyond a marked letter (`choice_answers`), values compared by math equivalence
(`answer_values`) and the numbers a response mentions at all (`mentioned_numbers`). How much
the rules decide and how often rightly: `rule_agreement` (perf/cmmath_rules.py prints it)."""
from mathprobe.benchmarks.cmmath.grading.rules import GRADERS, grade

__all__ = ["GRADERS", "grade"]
