"""WE-MATH by chance: a uniform guess among a question's options, written in the paper's answer
template (Table 3) so the authors' extraction reads it; right 1/k of the time for a question
with k options (its answer is one of them)."""
from __future__ import annotations

from mathprobe.items import ChanceAnswer, Item


def chance_answer(item: Item, setting: str) -> ChanceAnswer | None:
    k = len(item.choices)
    return ChanceAnswer(f"<Thought process>: <<a uniform guess among {k} options>> "
                        "<Answer>: <<{answer}>>", item.choices) if k else None


def chance_level(item: Item) -> float | None:
    return (1 / len(item.choices) if item.gold in item.choices else 0.0) if item.choices else None
