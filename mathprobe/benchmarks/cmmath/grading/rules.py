"""CMMaTH's rule grader: the first stage of the grading cascade.

Decides only what rules can decide, and returns correct=None otherwise:
  choice questions: the set of option letters in the final answer must equal the reference
    set ("A, C" against "C" is wrong); without letters, the option whose value the final
    statement states, the option whose text the last line ends with ("所以i<5"), the options
    it judges one by one ("故A正确…故D错误", read both ways where the question does not say
    which it asks for), the option listing or counting the numbered statements it judges
    ("∴③正确"); wrong when it concludes a number the right option is not.
  free-form: the final answer's value(s) against the reference's value(s), by math
    equivalence (math-verify over sympy: numbers, fractions, radicals, pi, intervals, sets,
    inequalities, equations) after dropping units and degree signs; a reference in parts
    ((1)...(2)..., ①② within a part) part by part (`multipart`); values given to names ("a=0.05",
    "中位数为55"), values concluded one by one, statements in words the last lines make
    (`stated_elsewhere`).
  wrong as well: an answer that never writes a reference value (or the right option's value
    and letter) in any form (`mentioned_numbers`), a marked answer that never writes the one numeric
    reference value, or names no statement for a reference of statement numbers.
Undecided: no final answer found and every reference value written somewhere, a reference or
an answer the parser cannot read (text answers, geometric relations it cannot compare),
several candidate answers that disagree, a reference marked "answer not unique" that the
answer does not match, no reference ("暂无").

The reference's structure is `reference_answer`'s, the final statement's values and their
comparison `final_statement`'s, what a choice answer names beyond a marked letter
`choice_answers`'s. How much it decides and how often rightly: perf/cmmath_rules.py
(`rule_agreement`).
"""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.data.options import gold_letters, option_texts
from mathprobe.benchmarks.cmmath.grading.answer_values import make_value, same_value
from mathprobe.benchmarks.cmmath.grading.choice_answers import (
    all_options,
    declines,
    judged_options,
    judged_statements,
    listed_options,
    names_letter,
    option_ending,
    words_absent,
)
from mathprobe.benchmarks.cmmath.grading.extraction import extract_choice, final_region
from mathprobe.benchmarks.cmmath.grading.final_statement import candidates, constant, grade_final
from mathprobe.benchmarks.cmmath.grading.mentioned_numbers import is_mentioned, reference_absent
from mathprobe.benchmarks.cmmath.grading.multipart import (
    LABEL_RE,
    SUBLABEL_RE,
    reference_parts,
    response_parts,
)
from mathprobe.benchmarks.cmmath.grading.reference_answer import Reference, parse_reference
from mathprobe.benchmarks.cmmath.grading.response_text import strip_wrappers
from mathprobe.benchmarks.cmmath.grading.stated_elsewhere import (
    by_conclusions,
    by_name,
    never_stated,
    states_text,
)
from mathprobe.items import Item
from mathprobe.options import LETTERS

GRADERS = ("rules",)


def grade_free_form(reference: Reference, response: str,
                    whole: bool = True) -> tuple[str | None, bool | None]:
    """A value answer against its reference; `whole`: the reference is one answer, not parts
    read as one (whose final statement may answer only the last part)."""
    extracted, verdict = grade_final(reference, response, whole)
    if verdict is None and (by_name(reference, response) or by_conclusions(reference, response)):
        return extracted, True
    if verdict is not True and states_text(reference, response):
        return extracted, True      # the statement in words said, whatever number came before
    return extracted, verdict


def _choice_by_value(item: Item, response: str) -> frozenset[str] | None:
    """A choice answered with an option's content instead of its letter: the one option whose
    value equals the final answer's (every value the final statement states, "所以AB=3，即BD=3")."""
    texts = option_texts(item.question, item.choices)
    region, how = final_region(response)
    if not texts or region is None:
        return None
    cands = candidates(region, how)
    if not cands:
        return None
    hits = {frozenset(letter for letter, t in texts.items()
                      if same_value(c, make_value(t)) is True) for c in cands}
    if len(hits) != 1:
        return None
    (hit,) = hits
    return hit if len(hit) == 1 else None


TABLE_RE = re.compile(r"\$#.*?#\$", re.DOTALL)
TABLE_CELL_RE = re.compile(r"\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}|-?\d+(?:\.\d+)?")


def _table_apart(part: str) -> tuple[str, Reference | None]:
    """A reference part with a table (a distribution: "X的分布列为：$#|...|#$ E(X)=2/3"): the
    part without the table and its lead-in ("…为："), and the table's numbers as a reference of
    values the response must write."""
    if "$#" not in part:
        return part, None
    cells = [make_value(c) for t in TABLE_RE.findall(part) for c in TABLE_CELL_RE.findall(t)]
    rest = TABLE_RE.sub("\n", part)
    rest = re.sub(r"^[^\n]*(?:为|如下|[:：])\s*[:：]?\s*\n", "", rest.lstrip())
    numbers = Reference(tuple(((c,),) for c in cells if c.parsed)) if cells else None
    return rest.strip(), numbers


def _grade_part(part: str, piece: str, question: str) -> tuple[str | None, bool | None]:
    subparts = reference_parts(part, SUBLABEL_RE)        # "①30人和20人；②$$\\frac{3}{10}$$"
    if subparts is not None:
        extracted, verdict = grade_in_parts(subparts, piece, question, SUBLABEL_RE)
        if verdict is not None:
            return extracted, verdict
    rest, table = _table_apart(part)
    if table is not None and not table.blanks:
        return None, None
    if table is not None and reference_absent(table, piece):
        return "(table)", False                 # a value of the table it never writes
    reference = parse_reference(rest, question) if strip_wrappers(rest) else None
    if reference is None:
        return ("(table)", True) if table is not None and not strip_wrappers(rest) else (None, None)
    extracted, verdict = grade_free_form(reference, piece)
    if verdict is False and not reference_absent(reference, piece) and \
            not never_stated(reference, piece):
        verdict = None          # a part's last statement may not be its answer: wrong only
    return extracted, verdict   # when the part never writes the value, or never states it


def grade_in_parts(parts: list[str], response: str, question: str = "",
                   labels_re: re.Pattern = LABEL_RE) -> tuple[str | None, bool | None]:
    """A reference in parts against the response's parts (labelled alike: "(1)", or "①" within
    a part): right when every part is right, wrong when some part is surely wrong, else
    undecided."""
    pieces = response_parts(response, len(parts), labels_re)
    if pieces is None:
        return None, None
    results = [_grade_part(part, piece, question) for part, piece in zip(parts, pieces)]
    extracted = " | ".join(e or "?" for e, _ in results)[:200]
    verdicts = [v for _, v in results]
    if all(v is True for v in verdicts):
        return extracted, True
    if any(v is False for v in verdicts):
        return extracted, False
    return extracted, None


def _gold_option_absent(item: Item, letters: frozenset[str], response: str) -> bool:
    """A right option the response never names, by its letter (as an option: 选项B, B项, B正确,
    答案是B) nor by its content (a plain number it never writes, or words it never uses): the
    response cannot have chosen it."""
    texts = option_texts(item.question, item.choices)
    for letter in letters:
        if letter not in texts or names_letter(response, letter):
            continue
        value = make_value(texts[letter])
        if value.kind == "math" and value.parsed and constant(value):
            if reference_absent(Reference((((value,),),)), response):
                return True
        elif words_absent(texts[letter], response):
            return True
    return False


def _other_value(item: Item, letters: frozenset[str], response: str) -> str | None:
    """The value the response's concluding statement states, when the right option is a number,
    the value is one too and differs from it (not within 2%, nor so scaled by a power of ten:
    another unit), and the response never names the right option's letter: it did not choose that
    option ("解得k=6" for "D.4个"); else None."""
    texts = option_texts(item.question, item.choices)
    if len(letters) != 1 or next(iter(letters)) not in texts:
        return None
    (letter,) = letters
    right = make_value(texts[letter])
    region, how = final_region(response)
    if how not in ("boxed", "marker", "conclusion") or region is None or \
            not constant(right) or names_letter(response, letter):
        return None                             # (a last line may be a step: "第四步：S=105")
    cands = candidates(region, how)
    if len(cands) != 1 or not constant(cands[0]) or same_value(cands[0], right) is not False:
        return None
    try:
        values = frozenset({abs(float(cands[0].parsed[0]))})
        if is_mentioned(abs(float(right.parsed[0])), values):
            return None                         # 2/3 against 0.667, 5000 against 5 (km)
    except (TypeError, ValueError):
        return None
    return cands[0].text


def grade_choice(item: Item, letters: frozenset[str], response: str) -> tuple[str | None, bool | None]:
    """A choice answer: the option set the response names (listed after the final marker, a
    marked letter group, an option's value, options judged one by one, a claim about all
    options) against the reference set; wrong when it declines to pick, or never names a right
    option in any way (the authors' judge: no particular option specified is "No")."""
    allowed = set(item.choices) or set(LETTERS[:4])
    chosen = listed_options(response, allowed)
    if chosen is None:
        chosen = extract_choice(response, item.choices)
    if chosen is None and item.choices:
        chosen = extract_choice(response, tuple(LETTERS))    # a letter it does not offer
    if chosen is None:
        chosen = _choice_by_value(item, response)
    if chosen is None:
        chosen = option_ending(item.question, response, item.choices)
    if chosen is None:
        readings = judged_options(item.question, response, item.choices)
        if readings is not None and len(readings) > 1:
            # the options judged one by one, read either way: wrong when neither reading is
            # the reference set, else undecided
            return "/".join("".join(sorted(r)) for r in readings), (
                None if letters in readings else False)
        chosen = readings[0] if readings else None
    if chosen is None:
        chosen = judged_statements(item.question, response, item.choices)
    if chosen is None:
        chosen = all_options(item.question, response, item.choices)
    if chosen is None:
        if declines(response):
            return "(declined)", False          # "无法确定": no option picked
        if _gold_option_absent(item, letters, response):
            return None, False                  # the right option never named in any way
        stated = _other_value(item, letters, response)
        if stated is not None:
            return stated, False                # concludes a value the right option is not
        return None, None
    if not chosen:
        return "(none)", False                  # "all are true", asked which is false
    return "".join(sorted(chosen)), chosen == letters


def looping(response: str) -> str | None:
    """The unit a response repeats until it was cut off ("AB=DC AB=DC ...", "8888..."): its
    last 120 or more characters have one period, seen at least four times; else None."""
    tail = re.sub(r"\s+", " ", response[-1500:]).rstrip()
    for period in range(1, 301):
        span = max(120, 4 * period)
        if span > len(tail):
            break
        end = tail[-span:]
        if end[period:] == end[:-period]:
            return end[-period:]
    return None


def grade_rules(item: Item, response: str | None) -> tuple[str | None, bool | None]:
    if response is None or not response.strip():
        return None, False                      # no answer at all: wrong (the judge's "No")
    gold = item.gold
    letters = gold_letters(gold)
    if letters is not None and (item.choices or item.part == "choice"):
        return grade_choice(item, letters, response)
    reference = parse_reference(gold, item.question)
    if reference is None:
        return None, None                       # no reference answer in the record
    extracted, verdict = None, None
    parts = reference_parts(gold)
    if parts is not None:
        extracted, verdict = grade_in_parts(parts, response, item.question)
    if verdict is None:
        extracted, verdict = grade_free_form(reference, response, whole=parts is None)
    if verdict is None and reference_absent(reference, response):
        return extracted, False                 # a reference value it never writes
    if verdict is None:
        unit = looping(response)
        if unit is not None and reference_absent(reference, unit + unit):
            return "(looping)", False           # cut off in a loop: it never gave its answer
    return extracted, verdict


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool | None]:
    """(extracted answer, correct) under `grader`; correct is None when undecided."""
    if grader != "rules":
        raise ValueError(f"unknown CMMaTH grader {grader!r}; choose from {GRADERS}")
    return grade_rules(item, response)
