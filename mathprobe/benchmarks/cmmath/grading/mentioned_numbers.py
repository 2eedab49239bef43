"""The numbers a response mentions anywhere, so the rules can say "wrong" about an answer whose
final statement they cannot read: a response that never writes a reference value, in any form,
cannot have given it.

Deliberately generous about what counts as mentioning a value (so that "absent" is certain):
every decimal, fraction (a/b, \\frac{a}{b}), percentage, small Chinese numeral and English
number word in the text counts, in absolute value, and a value also counts as mentioned when
the text has it within 2% or scaled by a power of ten (a unit changed: 498万元 written
4980000元, 11.42% written 0.1142, 1.48e14 written 148万亿). A value with pi or a square root counts as mentioned when
the text writes pi or a root at all.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from mathprobe.benchmarks.cmmath.grading.answer_values import CACHE_SIZE, Value, _parse_math
from mathprobe.benchmarks.cmmath.grading.reference_answer import Reference

_BRACED = r"\{+\s*(-?\d+(?:\.\d+)?)\s*\}+"
FRACTION_RE = re.compile(r"\\[dt]?frac\s*" + _BRACED + r"\s*" + _BRACED
                         + r"|\\[dt]?frac\s*(\d)\s*(\d)"            # \frac12
                         + r"|\\[dt]?frac\s*" + _BRACED + r"\s*(\d)"  # \frac{3}4
                         + r"|(?<![\d.])(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)(?![\d.])"
                         # a ratio, "2:3", "2\\colon 3", is a fraction too
                         + r"|(?<![\d.])(\d+(?:\.\d+)?)\s*(?::|：|∶|\\colon)\s*(\d+(?:\.\d+)?)(?![\d.])")
DECIMAL_RE = re.compile(r"\d+(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+")
CHINESE_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
                  "六": 6, "七": 7, "八": 8, "九": 9}
CHINESE_RE = re.compile(r"[零〇一二两三四五六七八九十百]+")
ENGLISH_NUMBERS = {w: float(k) for k, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
ENGLISH_NUMBERS.update({w: float(10 * k) for k, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)})
ENGLISH_NUMBERS.update({"hundred": 100.0, "thousand": 1000.0, "half": 0.5, "quarter": 0.25,
                        "third": 1 / 3, "once": 1.0, "twice": 2.0, "double": 2.0,
                        "triple": 3.0, "dozen": 12.0})
ENGLISH_RE = re.compile(r"\b(?:" + "|".join(sorted(ENGLISH_NUMBERS, key=len, reverse=True))
                        + r")s?\b", re.IGNORECASE)
RELATIVE_TOLERANCE = 0.02
# a value may be written in another unit (x 10^-4 .. 10^4) or with a Chinese order of
# magnitude after it (万 10^4, 亿 10^8, 万亿 10^12: "148万亿元" is 148 written)
POWERS = tuple(10.0 ** k for k in (-12, -8, *range(-4, 5), 8, 12))


def _chinese(word: str) -> float | None:
    """一 -> 1, 十二 -> 12, 三十五 -> 35, 一百 -> 100 (small numerals only)."""
    if "百" in word:
        head, _, rest = word.partition("百")
        hundreds = CHINESE_DIGITS.get(head, 1 if not head else None)
        tail = _chinese(rest) if rest else 0.0
        return None if hundreds is None or tail is None else hundreds * 100 + tail
    if "十" in word:
        head, _, rest = word.partition("十")
        tens = CHINESE_DIGITS.get(head, 1 if not head else None)
        ones = CHINESE_DIGITS.get(rest, 0 if not rest else None)
        return None if tens is None or ones is None else tens * 10 + ones
    if len(word) == 1:
        return float(CHINESE_DIGITS[word])
    return None


def _word_value(word: str) -> float:
    word = word.lower()
    return ENGLISH_NUMBERS[word] if word in ENGLISH_NUMBERS else ENGLISH_NUMBERS[word[:-1]]


@lru_cache(maxsize=4096)
def mentioned_numbers(text: str) -> frozenset[float]:
    """Absolute values of every number written in `text` (decimals, fractions, percentages,
    small Chinese numerals, English number words); a fraction also gives its numerator and
    denominator, adjacent number words their sum and product."""
    out: set[float] = set()
    for m in FRACTION_RE.finditer(text):
        groups = [g for g in m.groups() if g is not None]
        num, den = float(groups[0]), float(groups[1])
        out.update((abs(num), abs(den)))
        if den:
            out.add(abs(num / den))
    for m in DECIMAL_RE.finditer(text):
        out.add(float(m.group(0).replace(",", "")))
    for m in CHINESE_RE.finditer(text):
        value = _chinese(m.group(0))
        if value is not None:
            out.add(value)
    words = [(m, _word_value(m.group(0))) for m in ENGLISH_RE.finditer(text)]
    for k, (m, value) in enumerate(words):     # "six", "twenty-five", "two hundred"
        out.add(value)
        if k and re.fullmatch(r"[\s-]*(?:and\s+)?", text[words[k - 1][0].end():m.start()]):
            before = words[k - 1][1]
            out.update((before + value, before * value))
    return frozenset(out)


# How an irrational value must be written, if not as a decimal: with one of these.
# (an angle in radians may be written in degrees: "°", "度", "\\circ" count for pi)
SYMBOLS = {"pi": ("\\pi", "π", "pi", "°", "度", "\\circ"), "sqrt": ("\\sqrt", "√", "根号", "sqrt")}


def _number(v: Value) -> tuple[float, str | None] | None:
    """(value, family) of a reference that is a number: family None for a plain number
    (integer, decimal, fraction, percentage), "pi" or "sqrt" for one written with pi or square
    roots (and nothing else irrational); None for anything else, which is not looked for."""
    if v.kind != "math" or not v.parsed:
        return None
    return _number_of(v.text)


@lru_cache(maxsize=CACHE_SIZE)
def _number_of(text: str) -> tuple[float, str | None] | None:
    import sympy

    parsed = _parse_math(text)
    if not parsed:
        return None
    obj = parsed[0]
    if not isinstance(obj, sympy.Expr) or obj.free_symbols or not obj.is_number:
        return None
    if obj.is_Rational or obj.is_Float:
        return abs(float(obj)), None
    others = re.sub(r"\\(?:pi|sqrt|frac|dfrac|tfrac|times|cdot|left|right)", "", text)
    if re.search(r"\\[a-zA-Z]|[a-zA-Z]", others):
        return None           # e, ln, sin ...: written in too many ways to look for
    family = "pi" if "\\pi" in text else "sqrt" if "\\sqrt" in text else None
    if family is None or ("\\pi" in text and "\\sqrt" in text):
        return None
    try:
        return abs(float(obj)), family
    except (TypeError, ValueError):
        return None


def is_mentioned(target: float, numbers: frozenset[float]) -> bool:
    if target == 0:
        return 0.0 in numbers
    for scale in POWERS:
        want = target * scale
        if any(math.isclose(x, want, rel_tol=RELATIVE_TOLERANCE) for x in numbers):
            return True
    return False


def _alternative_absent(v: Value, numbers: frozenset[float], text: str) -> bool:
    found = _number(v)
    if found is None:
        return False
    target, family = found
    if v.degrees and any(sym in text for sym in SYMBOLS["pi"]):
        return False          # 60° may be written as pi/3
    if family is not None and any(sym in text for sym in SYMBOLS[family]):
        return False          # 8π, 4\\sqrt{3}: a form it may have written the value in
    return not is_mentioned(target, numbers)


def reference_absent(reference: Reference, response: str) -> bool:
    """True when some blank of the reference is certainly not in the response: every spelling
    of one of the blank's solutions (all of which are required) is a plain number the response
    never writes (or, for a value with pi or a square root, neither writes as a decimal nor
    writes pi or a root at all). Never for a reference whose answer is not unique."""
    if reference.not_unique:
        return False          # "答案不唯一": another answer may be right as well
    numbers = mentioned_numbers(response)
    for blank in reference.blanks:
        missing = [all(_alternative_absent(v, numbers, response) for v in alts) if alts else False
                   for alts in blank]
        if any(missing):
            return True
    return False
