"""Option letters of multiple-choice questions, shared by the benchmarks that have them."""
from __future__ import annotations

from collections.abc import Iterable

LETTERS = "ABCDEFGH"


def sequential_letters(found: Iterable[str], letters: str = LETTERS) -> tuple[str, ...]:
    """The option letters among candidate labels found in a text, taken only in alphabetical
    sequence (A, B, C, ...), so a stray 'G.' inside an option's text is not an option."""
    seen: list[str] = []
    for letter in found:
        if len(seen) < len(letters) and letter == letters[len(seen)]:
            seen.append(letter)
    return tuple(seen)
