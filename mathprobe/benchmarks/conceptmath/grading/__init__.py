"""ConceptMath's grading: its two graders by name, `official` (the authors', in module
`official`) and `strict` (ours, in module `strict`)."""
from __future__ import annotations

from mathprobe.benchmarks.conceptmath.grading.official import official_correct, official_extracted
from mathprobe.benchmarks.conceptmath.grading.strict import strict_correct
from mathprobe.items import Item

GRADERS = ("official", "strict")


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool]:
    """(extracted answer, correct) under `grader`: 'official' (the authors' lenient grader;
    extracted = the numbers it compares) or 'strict' (the final answer, by math-verify)."""
    gold = item.gold
    if grader == "official":
        if response is None:
            return None, False
        return (official_extracted(response),
                official_correct(gold, response, item.concept))
    if grader == "strict":
        return strict_correct(gold, response)
    raise ValueError(f"unknown ConceptMath grader {grader!r}; choose from {GRADERS}")
