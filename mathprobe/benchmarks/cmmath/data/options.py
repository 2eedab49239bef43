"""The options of a CMMaTH choice question (labels inside the question text) and the option
set of a choice answer."""
from __future__ import annotations

import re

from mathprobe.options import LETTERS, sequential_letters

# An option label at the start of a line or after white space: "A.", "B．", "C、", "D)".
OPTION_RE = re.compile(r"(?:^|(?<=\s))(?:\$\$)?([A-H])(?:\$\$)?\s*[.．、:：)）]")


def option_letters(question: str) -> tuple[str, ...]:
    """Option letters of a choice question ('...\\nA.42.5分钟\\nB.45.5分钟...' -> ('A', 'B', ...)).

    Letters must come in alphabetical sequence, so a point named 'D.' inside the text is not
    taken for an option.
    """
    seen = sequential_letters(OPTION_RE.findall(question or ""))
    return tuple(seen) if len(seen) >= 2 else ()


def option_texts(question: str, letters: tuple[str, ...]) -> dict[str, str]:
    """letter -> the option's text (up to the next option or the end of the question)."""
    spans: list[tuple[str, int, int]] = []
    want = list(letters)
    for m in OPTION_RE.finditer(question or ""):
        if want and m.group(1) == want[0]:
            spans.append((want.pop(0), m.start(), m.end()))
    out = {}
    for k, (letter, _, end) in enumerate(spans):
        stop = spans[k + 1][1] if k + 1 < len(spans) else len(question)
        out[letter] = question[end:stop].strip()
    return out


def gold_letters(answer: str) -> frozenset[str] | None:
    """The reference option set of a choice answer ('C\\n', 'A\\nC\\n', 'A, C'), or None."""
    body = re.sub(r"[\s,，、;；]", "", answer or "")
    if body and len(body) <= len(LETTERS) and all(ch in LETTERS for ch in body):
        return frozenset(body)
    return None
