"""CMMaTH's rule grader: the first stage of the grading cascade.

Decides only what rules can decide, and returns correct=None otherwise:
  choice questions: the set of option letters in the final answer must equal the reference
    set ("A, C" against "C" is wrong); without letters, the option whose value the answer
    states, or (in "which are correct" questions) the options it calls correct one by one;
  free-form: the final answer's value(s) against the reference's value(s), by math
    equivalence (math-verify over sympy: numbers, fractions, radicals, pi, intervals, sets,
    equations) after dropping units and degree signs; a reference in parts ((1)...(2)...)
    part by part (`_parts`); values given to names ("a=0.05", "中位数为55"); a statement in
    words the response's last lines make.
  wrong as well: an answer that never writes a reference value (or the right option's value
    and letter) in any form (`_mentions`).
Undecided: no final answer found and every reference value written somewhere, a reference or
an answer the parser cannot read (text answers, geometric relations it cannot compare),
several candidate answers that disagree, a reference marked "answer not unique" that the
answer does not match, no reference ("暂无").

How much it decides and how often rightly: benchmarks/cmmath_rules.py (`_measure`).
"""
from __future__ import annotations

import re

from mathprobe.tasks.benchmarks.cmmath._extract import (BLANK_RE, CONCLUDES_RE, NUMBER_RE,
                                                        RELATION_RE, extract_choice, final_region,
                                                        judged_options)
from mathprobe.tasks.benchmarks.cmmath._mentions import reference_absent
from mathprobe.tasks.benchmarks.cmmath._options import gold_letters, option_texts
from mathprobe.tasks.benchmarks.cmmath._parts import (concluded_values, named_values,
                                                      reference_parts, response_parts, value_named)
from mathprobe.tasks.benchmarks.cmmath._text import (CJK_RE, at_depth0, canonical, clean_text,
                                                     split_outside, split_words_outside,
                                                     strip_wrappers)
from mathprobe.tasks.benchmarks.cmmath._values import (PART_LABEL_RE, Reference, Value, make_value,
                                                       parse_reference, same_value)
from mathprobe.tasks.items import Item
from mathprobe.tasks.options import LETTERS

GRADERS = ("rules",)


def _is_equation_side(lhs: str) -> bool:
    bare = re.sub(r"\\[a-zA-Z]+", " ", lhs)
    has_op = bool(re.search(r"[+\-*/^]|\\times|\\cdot|\\frac", lhs))
    has_var = bool(re.search(r"(?<![a-zA-Z])[a-z](?![a-zA-Z])", bare))
    return has_op and has_var


CONDITION_RE = re.compile(r"\s*\$*\s*(?:当|若|如果|假设|设|令|由(?![^，,；;]*[得知]))|.*时\s*\$*\s*$")


def _candidates(region: str, how: str) -> list[Value]:
    """Stated values of the final-answer region: per clause, the value after its last
    relation word ('所以EF = 6' -> 6, '面积为8平方厘米' -> 8, 'AB = AC + BC = 5' -> 5). In an
    explicitly marked region (boxed, 答案：, Answer:) where no clause has a relation word, the
    clauses themselves are the values; a 'number' region gives its one number."""
    if how == "number":
        return [make_value(n) for n in NUMBER_RE.findall(strip_wrappers(region))][:1]
    stated: list[Value] = []
    bare: list[Value] = []
    clauses = split_outside(region, "，,；;。\n")
    if how in ("conclusion", "last_line"):
        # "设人数为x，则...=0.36/x，解得x=18": from the last clause that concludes
        last = max((k for k, c in enumerate(clauses) if CONCLUDES_RE.match(c)), default=0)
        clauses = clauses[last:]
    # "当x=1/4时，S=-2": a condition states no answer
    clauses = [c for c in clauses if not CONDITION_RE.match(c)] or clauses
    for clause in clauses:
        clause = PART_LABEL_RE.sub("", clause.lstrip(":： "))      # "：①9；②8"
        for part in split_words_outside(clause, r"或|\band\b|和"):
            rels = [m for m in RELATION_RE.finditer(part) if at_depth0(part, m.start())]
            if rels:
                lhs = part[rels[-2].end() if len(rels) > 1 else 0:rels[-1].start()]
                if _is_equation_side(lhs):
                    # "3x + y = 24" states an equation, not the value 24
                    stated.append(Value(part.strip(), False, None, "equation"))
                else:
                    stated.append(make_value(part[rels[-1].end():]))
            else:
                bare.append(make_value(part))
    out = stated if stated or how not in ("boxed", "marker") else bare
    return [v for v in out if v.text]


def _is_collection(v: Value) -> bool:
    """A reference value with several elements (a set, a tuple, a point)."""
    import sympy

    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, (sympy.FiniteSet, sympy.Tuple)) or (
        isinstance(obj, sympy.Interval) and not obj.is_empty)


def _constant(v: Value) -> bool:
    """A reference value that is a plain number (no unknowns, no relation, no set)."""
    import sympy

    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, sympy.Expr) and not obj.free_symbols


def _symbolic(v: Value) -> bool:
    """A stated value that is no number: segment or angle names, or unknowns (BD + 2, r - d)."""
    import sympy

    if v.kind == "relation_geo":
        return True
    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, sympy.Expr) and bool(obj.free_symbols)


def _any_same(c: Value, alts: tuple[Value, ...]) -> bool | None:
    """A candidate against a solution's alternative spellings."""
    if alts and all(_constant(a) for a in alts):
        if c.bare_number is not None:     # a number was asked for: "500m" is 500 metres
            c = make_value(c.bare_number)
        elif _symbolic(c):
            return False          # a number was asked for; the answer is no number
    # against a reference such as "4m" (4 metres or 4 times m) only the same form decides
    results = [None if r is False and a.bare_number is not None else r
               for a in alts for r in [same_value(c, a)]]
    if any(r is True for r in results):
        return True
    if results and all(r is False for r in results):
        return False
    return None


def grade_free_form(reference: Reference, response: str) -> tuple[str | None, bool | None]:
    extracted, verdict = _grade_final(reference, response)
    if verdict is None and (_by_name(reference, response) or _by_conclusions(reference, response)
                            or _states_text(reference, response)):
        return extracted, True
    return extracted, verdict


NEGATION = "不没未非无否"


def _states_text(reference: Reference, response: str) -> bool:
    """A reference that is one statement in words ("模型②的拟合效果较好", at least six
    characters) which one of the response's last three lines contains, not negated."""
    if len(reference.blanks) != 1 or len(reference.blanks[0]) != 1 or \
            len(reference.blanks[0][0]) != 1 or reference.blanks[0][0][0].kind != "text":
        return False
    want = canonical(reference.blanks[0][0][0].text.rstrip("。．. "))
    if len(CJK_RE.findall(want)) < 6:
        return False
    lines = [ln for ln in clean_text(response).split("\n") if ln.strip()][-3:]
    for line in lines:
        said = canonical(make_value(line).text)      # normalised alike
        at = said.rfind(want)
        if at >= 0 and (at == 0 or said[at - 1] not in NEGATION):
            return True
    return False


def _by_conclusions(reference: Reference, response: str) -> bool:
    """A reference of several blanks whose every value the response concludes, each in a
    statement of its own ("∴AB=2√13", "所以AC=3√13"), and whose final statement concludes
    nothing else."""
    blanks = reference.blanks
    if len(blanks) < 2 or any(len(b) != 1 for b in blanks):
        return False
    region, how = final_region(response)
    final = _candidates(region, how) if region is not None else []
    if any(not any(_any_same(c, b[0]) is True for b in blanks) for c in final):
        return False
    concluded = [make_value(value) for value in concluded_values(response)]
    used: set[int] = set()
    for (alts,) in blanks:
        hit = next((k for k, v in enumerate(concluded) if k not in used
                    and _any_same(v, alts) is True), None)
        if hit is None:
            return False
        used.add(hit)
    return True


def _by_name(reference: Reference, response: str) -> bool:
    """Every blank of the reference names its value ("a=0.05，b=0.2") and the response last
    gives each of those names that value."""
    if not reference.names or None in reference.names:
        return False
    stated = named_values(response)
    for name, solutions in zip(reference.names, reference.blanks):
        value = value_named(stated, name)
        if value is None or len(solutions) != 1 or \
                _any_same(make_value(value), solutions[0]) is not True:
            return False
    return True


def _grade_final(reference: Reference, response: str) -> tuple[str | None, bool | None]:
    """The final statement of the response against the reference."""
    region, how = final_region(response)
    if how in ("blank", "no_answer"):
        return f"({how})", False            # no definite answer: the judge's rule says No
    if region is None:
        return None, None
    cands = _candidates(region, how)
    if not cands:
        if BLANK_RE.search(region):
            return "(blank)", False          # "面积为\\underline{}": the answer is left blank
        return strip_wrappers(region)[:200] or None, None
    extracted = "; ".join(c.text for c in cands)[:200]
    blanks = reference.blanks
    if len(blanks) == 1 and len(blanks[0]) == 1:
        alts = blanks[0][0]
        if len(cands) > 1 and any(_is_collection(a) for a in alts):
            # "x=5，y=8" against "$$5，8$$": the values together are the answer
            joined = _any_same(make_value(", ".join(c.text for c in cands)), alts)
            return extracted, True if joined is True else None
        results = [_any_same(c, alts) for c in cands]
        if results and all(r is True for r in results):
            return extracted, True
        if results and all(r is False for r in results):
            return extracted, None if reference.not_unique else False
        return extracted, None
    if len(blanks) == 1:                            # several solutions: all must be given
        sols = blanks[0]
        if reference.not_unique:                    # ... or any one, if the key says so
            results = [any(_any_same(c, s) is True for s in sols) for c in cands]
            return extracted, True if all(results) else None
        return extracted, _same_sets(cands, sols)
    if len(cands) != sum(len(b) for b in blanks):   # several blanks: one value for each
        return extracted, None
    flat = [s for b in blanks for s in b]
    return extracted, _same_sets(cands, flat)


def _same_sets(cands: list[Value], sols: list | tuple) -> bool | None:
    """Every solution stated and nothing else, in any order: True; a difference the rules are
    sure of: False; otherwise None."""
    table = [[_any_same(c, s) for s in sols] for c in cands]
    every_sol = all(any(table[i][j] is True for i in range(len(cands))) for j in range(len(sols)))
    every_cand = all(any(r is True for r in row) for row in table)
    if every_sol and every_cand:
        return True
    if all(r is not None for row in table for r in row):
        return False
    return None


def _choice_by_value(item: Item, response: str) -> frozenset[str] | None:
    """A choice answered with an option's content instead of its letter: the one option whose
    value equals the final answer's."""
    texts = option_texts(item.question, item.choices)
    region, how = final_region(response)
    if not texts or region is None:
        return None
    cands = _candidates(region, how)
    if len(cands) != 1:
        return None
    hits = [letter for letter, t in texts.items() if same_value(cands[0], make_value(t)) is True]
    return frozenset(hits) if len(hits) == 1 else None


def grade_in_parts(parts: list[str], response: str) -> tuple[str | None, bool | None]:
    """A reference in parts against the response's parts: right when every part is right,
    wrong when some part is surely wrong, else undecided."""
    pieces = response_parts(response, len(parts))
    if pieces is None:
        return None, None
    results = []
    for part, piece in zip(parts, pieces):
        reference = parse_reference(part)
        if reference is None:
            results.append((None, None))
            continue
        extracted, verdict = grade_free_form(reference, piece)
        if verdict is False and not reference_absent(reference, piece):
            verdict = None      # a part's last statement may not be its answer: wrong only
        results.append((extracted, verdict))      # when the part never writes the value
    extracted = " | ".join(e or "?" for e, _ in results)[:200]
    verdicts = [v for _, v in results]
    if all(v is True for v in verdicts):
        return extracted, True
    if any(v is False for v in verdicts):
        return extracted, False
    return extracted, None


def _gold_option_absent(item: Item, letters: frozenset[str], response: str) -> bool:
    """A right option whose content is a plain number the response never writes, and whose
    letter it never writes on its own: the response cannot have chosen it."""
    texts = option_texts(item.question, item.choices)
    bare = re.sub(r"[${}\\]", " ", response)
    for letter in letters:
        if letter not in texts or re.search(rf"(?<![A-Za-z]){letter}(?![A-Za-z])", bare):
            continue
        if reference_absent(Reference(((( make_value(texts[letter]),),),)), response):
            return True
    return False


def grade_rules(item: Item, response: str | None) -> tuple[str | None, bool | None]:
    if response is None or not response.strip():
        return None, False                      # no answer at all: wrong (the judge's "No")
    gold = item.gold
    letters = gold_letters(gold)
    if letters is not None and (item.choices or item.part == "choice"):
        chosen = extract_choice(response, item.choices)
        if chosen is None and item.choices:
            chosen = extract_choice(response, tuple(LETTERS))    # a letter it does not offer
        if chosen is None:
            chosen = _choice_by_value(item, response)
        if chosen is None:
            chosen = judged_options(item.question, response, item.choices)
        if chosen is None:
            if _gold_option_absent(item, letters, response):
                return None, False              # the right option never named nor its value
            return None, None
        return "".join(sorted(chosen)), chosen == letters
    reference = parse_reference(gold)
    if reference is None:
        return None, None                       # no reference answer in the record
    extracted, verdict = None, None
    parts = reference_parts(gold)
    if parts is not None:
        extracted, verdict = grade_in_parts(parts, response)
    if verdict is None:
        extracted, verdict = grade_free_form(reference, response)
    if verdict is None and reference_absent(reference, response):
        return extracted, False                 # a reference value it never writes
    return extracted, verdict


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool | None]:
    """(extracted answer, correct) under `grader`; correct is None when undecided."""
    if grader != "rules":
        raise ValueError(f"unknown CMMaTH grader {grader!r}; choose from {GRADERS}")
    return grade_rules(item, response)
