"""WE-MATH's official grader: the authors' answer extraction, exactly (docs/benchmarks.md, WE-MATH)."""
from __future__ import annotations

from mathprobe.items import Item
from mathprobe.options import LETTERS

GRADERS = ("official",)


def answer_tail(response: str) -> str:
    """What the authors' extraction reads: the text after the last 'Answer' (all of it when
    absent), stripped of '<', '>', ':' and '.'."""
    text = response.rsplit("Answer", 1)[-1].strip()
    for ch in "<>:.":
        text = text.replace(ch, "")
    return text.strip()


def extract_official(response: str | None) -> str | None:
    """The authors' extraction: the first character after the last 'Answer', if a letter A-H."""
    if not response:
        return None
    text = answer_tail(response)
    return text[0] if text and text[0] in LETTERS else None


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool]:
    """(extracted answer, correct) under `grader`."""
    if grader != "official":
        raise ValueError(f"unknown WE-MATH grader {grader!r}; choose from {GRADERS}")
    extracted = extract_official(response)
    return extracted, extracted is not None and extracted == item.gold


def answer_outside(item: Item, response: str | None) -> str | None:
    """A response whose answer, read as the authors' extraction reads it, is a bare letter that
    is none of the question's options ('H', 'Z', '<Answer>: <<G>>' for options A-E): why, for
    the import to flag the row (it is graded wrong, as the authors' script grades it)."""
    from mathprobe.benchmarks.wemath.data.dataset import option_letters

    if not response:
        return None
    tail = answer_tail(response)
    letters = option_letters(item.payload.get("option", ""))
    if len(tail) == 1 and "A" <= tail <= "Z" and letters and tail not in letters:
        return (f"answer {tail!r} is none of the question's options {', '.join(letters)} "
                "(kept, graded wrong as the authors' script grades it)")
    return None
