"""ConceptMath by chance: a uniform guess of a whole number 0..100 (the answers are free-form;
small whole numbers are the commonest), written as the authors' worked answers end ("Therefore,
the answer is 57." / "因此，答案是57。") so their grader reads it.

Its chance level under the official grader, exactly as that grader decides: the share of the
101 guesses within its tolerance of every gold item (|gold - guess| <= |gold|/20 below 20,
else 1; so 1 guess in 101 for a whole gold under 20, 3 from 20 to 99). A gold item is valued by
the grader's own normalisation: plain numbers and fractions exactly (Fraction), other values
(radicals, pi, LaTeX) through sympy as the grader does, numerically; a gold that is not a
number (a symbol, text) is close to no guess.
"""
from __future__ import annotations

import math
from fractions import Fraction

from mathprobe.benchmarks.conceptmath.data.dataset import language
from mathprobe.benchmarks.conceptmath.grading.official import (
    PLAIN_NUMBER_RE,
    _prepare,
    gold_items,
    normalise,
)
from mathprobe.items import ChanceAnswer, Item

GUESSES = tuple(str(k) for k in range(101))
TEMPLATES = {"en": "Therefore, the answer is {answer}.", "zh": "因此，答案是{answer}。"}


def chance_answer(item: Item, setting: str) -> ChanceAnswer:
    return ChanceAnswer(TEMPLATES[language(item.group_id or "")], GUESSES)


def _value(text: str) -> Fraction | float | None:
    """A gold item's value as the official grader normalises it; None: not a number."""
    plain = PLAIN_NUMBER_RE.fullmatch(_prepare(text))
    if plain:
        value = Fraction(plain[1] + plain[2])
        return value / Fraction(plain[3] + plain[4]) if plain[4] is not None else value
    parsed = normalise(text)
    try:
        return float(parsed) if getattr(parsed, "is_number", False) else None
    except (TypeError, ValueError):
        return None


def _close_guesses(value: Fraction | float) -> set[int]:
    """The whole numbers 0..100 the grader calls close to `value` (its signed tolerance)."""
    delta = (value if value >= 0 else -value) / 20 if value < 20 else 1
    low, high = max(0, math.ceil(value - delta)), min(100, math.floor(value + delta))
    return set(range(low, high + 1))


def chance_level(item: Item) -> float:
    guesses: set[int] | None = None
    for g in gold_items(item.gold):
        value = _value(g)
        close = _close_guesses(value) if value is not None else set()
        guesses = close if guesses is None else guesses & close
    return len(guesses or ()) / len(GUESSES)
