"""WE-MATH's official grader: the authors' answer extraction, exactly (docs/benchmarks.md, WE-MATH)."""
from __future__ import annotations

from mathprobe.items import Item
from mathprobe.options import LETTERS

GRADERS = ("official",)


def extract_official(response: str | None) -> str | None:
    """The authors' extraction: the first character after the last 'Answer', if a letter A-H."""
    if not response:
        return None
    text = response.rsplit("Answer", 1)[-1].strip()
    for ch in "<>:.":
        text = text.replace(ch, "")
    text = text.strip()
    return text[0] if text and text[0] in LETTERS else None


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool]:
    """(extracted answer, correct) under `grader`."""
    if grader != "official":
        raise ValueError(f"unknown WE-MATH grader {grader!r}; choose from {GRADERS}")
    extracted = extract_official(response)
    return extracted, extracted is not None and extracted == item.gold
