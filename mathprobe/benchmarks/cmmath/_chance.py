"""CMMaTH by chance: a uniform guess, written as the published prompt of the setting asks an
answer to end ("所以最终的答案为C。" for the authors' step and plain templates, "So the final
answer is C." for En-CoT, "Answer: C." for Cross-Lingual Prompting) so the rule grader reads it:
a letter among the options of a choice question, else a whole number 0..100.

Its chance level under the rule grader: 1/k for a choice question with k options and one right
option (a single letter can never give a multiple-choice answer's set, nor a reference without
options); for a free-form answer (and a choice question whose options the text does not label),
1/101 where the reference is one whole number 0..100, else 0 (a guessed whole number is then
essentially never equal to the reference's fraction, radical or parts; checked against the rule
grader on the sample data: that leaves out under 0.1 points of chance overall).
"""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath._prompts import parse_setting
from mathprobe.benchmarks.cmmath.data.options import gold_letters
from mathprobe.items import ChanceAnswer, Item

GUESSES = tuple(str(k) for k in range(101))
TEMPLATES = {"step": "所以最终的答案为{answer}。", "plain": "所以最终的答案为{answer}。",
             "en-cot": "So the final answer is {answer}.", "clp": "Answer: {answer}."}
WHOLE_RE = re.compile(r"\$*\s*(\d{1,3})\s*(?:\^\{?\\circ\}?|°)?\s*\$*")


def _reference(item: Item) -> str:
    return str(item.payload.get("answer", item.gold) or "")


def chance_answer(item: Item, setting: str) -> ChanceAnswer:
    _, prompt = parse_setting(setting)
    return ChanceAnswer(TEMPLATES[prompt], item.choices or GUESSES)


def chance_level(item: Item) -> float:
    if item.choices:
        gold = gold_letters(_reference(item))
        return 1 / len(item.choices) if gold and len(gold) == 1 and gold <= set(item.choices) \
            else 0.0
    whole = WHOLE_RE.fullmatch(_reference(item).strip())
    return 1 / len(GUESSES) if whole and int(whole[1]) <= 100 else 0.0
