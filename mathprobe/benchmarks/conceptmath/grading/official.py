"""ConceptMath's official grader: the authors' exact-match grader with numeric tolerance,
reproduced quirk for quirk as it stands in their repository today (docs/benchmarks.md, ConceptMath).

It is lenient (any number in the answer span can match the gold) and it is the reference for the
paper's figures. It needs sympy's LaTeX parser, i.e. `antlr4-python3-runtime==4.11` beside
`sympy==1.14.0`; with another ANTLR runtime `parse_latex` fails on every input and every verdict
changes.
"""
from __future__ import annotations

import contextlib
import io
import re
from functools import lru_cache
from typing import Any

# Step 1: the answer-span prefixes, in the authors' order ('答案是' appears twice, as theirs).
ANSWER_PREFIXES = (
    "答案是", "答案：", "answer (arabic numbers) is", "(arabic numerals) is", "answer is:",
    "answer is :", "answer is", "Therefore, the answer (arab", "Answer: ", "结果是", "结果为",
    "答案为", "答案是", "得出答案", "所以", "因此",
)

# Step 3: English number words. The authors' alternation lacks a '|' between 'fourth' and
# 'eleven', so it holds the single word 'fourtheleven' instead of either: 'fourth' and 'eleven'
# are never converted. Kept as it is (and 'fourtheleven' maps to the string 'None', as theirs).
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "first": 1, "second": 2, "third": 3, "fourth": 4, "one hundred": 100,
}
_WORD_ALTERNATIVES = (
    ["one hundred", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
     "ten", "first", "second", "third",
     "fourth" + "eleven",                       # the missing separator, reproduced
     "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
     "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
)
NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(_WORD_ALTERNATIVES) + r")\b")
DIGIT_COMMA_RE = re.compile(r"(?<=\d),(?=\d)")

# Step 3: the numbers of the answer span. An optional sign, then one of
#   a fraction 'a/b' (a and b may be decimals) | a mixed number 'a b/c' | an integer or decimal,
# optionally followed by '*' and a pi symbol and by '%'; or a '$...$' span with none of the
# characters  ( ) | $ x y z  inside (the authors wrote that set as '[^(\$|x|y|z)]').
_PI = r"(?:π|\\pi|\\\\pi|pi)"
_NUMBER = (r"(?:\d+(?:\.\d+)?/\d+(?:\.\d+)?"      # fraction
           r"|\d+\s+\d+/\d+"                      # mixed number
           r"|\d+(?:\.\d+)?)")                    # integer or decimal
NUMBER_RE = re.compile(r"[-+]?(?:" + _NUMBER + r"(?:\*?" + _PI + r")?%?" + r"|\$[^()$|xyz]*\$)")

# Step 4: normalisation.
MIXED_RE = re.compile(r"(\d+)\s+(\d+)/(\d+)")
PERCENT_RE = re.compile(r"(\d+(\.\d+)?)%")
PI_RE = re.compile(r"(π|\\pi|\\\\pi|pi)")
# A prepared value that is a signed decimal number or a quotient of two (2/3 of the values in
# the authors' responses): built here exactly as sympy's LaTeX parser builds it (a NUMBER token
# is sympy.Number(text), a unary minus negates, a '/' is an unevaluated Mul by Pow(-1)), without
# the ANTLR parse, which took ~10 ms a value (three quarters of a 1000-answer import).
_NUM = r"([+-]?)(\d+(?:\.\d+)?)"
PLAIN_NUMBER_RE = re.compile(_NUM + r"(?:/" + _NUM + r")?")

# The only concept the authors' wider tolerance was meant for. Their evaluation passes the full
# path 'cate0/cate1/cate2', which never equals it, so the wider tolerance never applies.
ESTIMATION_CONCEPT = "Estimation and rounding"


def answer_span(response: str) -> str:
    """Step 1: narrow the response to the text after an answer prefix."""
    text = response
    for prefix in ANSWER_PREFIXES:
        parts = text.split(prefix)
        if len(parts) == 2:           # exactly one occurrence: take what follows, stop
            text = parts[1]
            break
        if len(parts) > 2:            # several: take what follows the last, keep going
            text = parts[-1]
    return text.strip()


def gold_items(gold: str) -> list[str]:
    """Step 2: the gold answer as a list ('[1/4,1/3]', 'a，b' -> two items)."""
    for ch in "[]_":
        gold = gold.replace(ch, "")
    return gold.replace("，", ",").split(",")


def _word_to_digits(match: re.Match) -> str:
    return str(NUMBER_WORDS.get(match.group(0)))


def find_numbers(span: str) -> list[str]:
    """Step 3: number words to digits, thousands commas dropped, then every number found
    (a match holding '=' keeps what follows its last '=')."""
    span = NUMBER_WORD_RE.sub(_word_to_digits, span)
    span = DIGIT_COMMA_RE.sub("", span)
    return [m.group(0).rsplit("=", 1)[-1] for m in NUMBER_RE.finditer(span)]


def _improper(match: re.Match) -> str:
    whole, num, den = int(match.group(1)), int(match.group(2)), int(match.group(3))
    return f"{whole * den + num}/{den}"


def _pi_replacer(original: str):
    def replace(match: re.Match) -> str:
        before = original[match.start() - 1] if match.start() > 0 else ""
        return "*3.14" if before.isdigit() else "3.14"
    return replace


def _prepare(text: str) -> str:
    """Step 4 up to the parse: mixed numbers, '$'/blanks, minus signs, percent, pi."""
    text = MIXED_RE.sub(_improper, text)
    text = text.replace("$", "").replace(" ", "").replace("\t", "")
    text = text.replace("−", "-").replace("﹣", "-")
    text = PERCENT_RE.sub(lambda m: str(float(m.group(1)) / 100), text)
    # The digit test looks at the string as it was before any pi was replaced (as theirs).
    return PI_RE.sub(_pi_replacer(text), text)


def _as_parsed(plain: re.Match) -> Any:
    """What sympy's parse_latex returns for a PLAIN_NUMBER_RE match (checked equal, type and
    precision included, on every such value of the ConceptMath data)."""
    from sympy import Mul, Number, Pow

    def signed(sign: str, digits: str) -> Any:
        return -Number(digits) if sign == "-" else Number(digits)

    value = signed(plain[1], plain[2])
    if plain[4] is not None:
        value = Mul(value, Pow(signed(plain[3], plain[4]), -1, evaluate=False), evaluate=False)
    return value


@lru_cache(maxsize=65536)
def normalise(text: str) -> Any:
    """Step 4: the value a gold or predicted item stands for: a sympy expression, or the
    prepared string where sympy's LaTeX parser fails. (If the parse succeeds and simplify
    fails, the parsed expression stands, as in the authors' code.)"""
    from sympy import simplify
    from sympy.parsing.latex import parse_latex

    value: Any = _prepare(text)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            plain = PLAIN_NUMBER_RE.fullmatch(value)
            value = _as_parsed(plain) if plain else parse_latex(value)
            value = simplify(value)
    except Exception:    # the authors catch everything; a failed parse leaves the string
        pass
    return value


def is_close(gold: Any, pred: Any, concept: str | None = None) -> bool:
    """Step 5: |gold - pred| <= delta, delta = |gold|/20 if gold < 20 else 1 (signed test: a
    negative gold gets |gold|/20); any error (a string, a free symbol) is 'not close'."""
    try:
        delta = abs(gold / 20) if gold < 20 else 1
        if concept == ESTIMATION_CONCEPT:        # never true in the official evaluation
            delta = abs(gold / 5)
        return bool(abs(gold - pred) <= delta)
    except Exception:
        return False


def official_correct(gold: str, response: str | None, concept: str | None = None) -> bool:
    """The authors' verdict: every gold item is close to some number of the answer span.

    `concept` is what the authors pass: the full path 'cate0/cate1/cate2'."""
    if response is None:
        return False
    predicted = find_numbers(answer_span(response))
    if not predicted:
        return False
    pred_values = [normalise(p) for p in predicted]
    for g in gold_items(gold):
        gold_value = normalise(g)
        if not any(is_close(gold_value, p, concept) for p in pred_values):
            return False
    return True


def official_extracted(response: str | None) -> str | None:
    """What the official grader compares: the numbers of the answer span, '; '-joined."""
    if response is None:
        return None
    numbers = find_numbers(answer_span(response))
    return "; ".join(numbers) if numbers else None
