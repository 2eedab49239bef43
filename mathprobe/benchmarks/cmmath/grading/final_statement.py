"""The final answer of a CMMaTH free-form response against the reference: the values its
final statement states (`candidates`: after the last relation word of each clause, a marked
answer's bare values, values listed after "分别为"), compared with the reference's blanks
(`any_same`), and the verdict of that final statement (`grade_final`): right when it states
every reference value and nothing else, wrong when the rules are sure it states something else
(a marked answer with no number for a number, none of a multi-value reference's values, an
option letter where no options exist is left undecided)."""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.grading.answer_values import (
    Value,
    constant,
    make_value,
    numeric,
    same_value,
)
from mathprobe.benchmarks.cmmath.grading.extraction import (
    BLANK_RE,
    CONCLUDES_RE,
    COUNT_RE,
    INEQUALITY_RE,
    NUMBER_RE,
    RELATION_RE,
    final_region,
)
from mathprobe.benchmarks.cmmath.grading.mentioned_numbers import (
    mentioned_numbers,
    reference_absent,
)
from mathprobe.benchmarks.cmmath.grading.reference_answer import PART_LABEL_RE, Reference
from mathprobe.benchmarks.cmmath.grading.response_text import (
    CJK_RE,
    at_depth0,
    split_outside,
    split_words_outside,
    strip_wrappers,
)

# a name raised to a power or with an index ("s^{2}", "{{K}^{2}}", "x_1"): a name, not an expression
POWER_NAME_RE = re.compile(r"[{\s]*[A-Za-z][}\s]*(?:_\s*\{?\s*\w+\s*\}?)?[}\s]*(?:\^\s*\{?\s*\d\s*\}?)?[}\s]*")


def _is_equation_side(lhs: str) -> bool:
    if POWER_NAME_RE.fullmatch(re.sub(r"[\u3400-\u9fff$：:，,]", "", lhs)):
        return False
    bare = re.sub(r"\\[a-zA-Z]+", " ", lhs)
    has_op = bool(re.search(r"[+\-*/^]|\\times|\\cdot|\\frac", lhs))
    has_var = bool(re.search(r"(?<![a-zA-Z])[a-z](?![a-zA-Z])", bare))
    return has_op and has_var


CONDITION_RE = re.compile(r"\s*\$*\s*(?:当|若|如果|假设|设|令|由(?![^，,；;]*[得知]))|.*时\s*\$*\s*$")


def candidates(region: str, how: str) -> list[Value]:
    """Stated values of the final-answer region: per clause, the value after its last
    relation word ('所以EF = 6' -> 6, '面积为8平方厘米' -> 8, 'AB = AC + BC = 5' -> 5), and the
    values listed after it ('顺序是2，4，3，1'). In an
    explicitly marked region (boxed, 答案：, Answer:) where no clause has a relation word, the
    clauses themselves are the values; a 'number' region gives its one number."""
    if how == "number":            # with its order of magnitude: "投入498万元" is 4980000
        text = strip_wrappers(region)
        return [make_value(m.group(0) + _magnitude(text[m.end():]))
                for m in NUMBER_RE.finditer(text)][:1]
    stated: list[Value] = []
    bare: list[Value] = []
    clauses = split_outside(region, "，,；;。\n")
    if how in ("conclusion", "last_line"):
        # "设人数为x，则...=0.36/x，解得x=18": from the last clause that concludes
        last = max((k for k, c in enumerate(clauses) if CONCLUDES_RE.match(c)), default=0)
        clauses = clauses[last:]
    # "当x=1/4时，S=-2": a condition states no answer
    clauses = [c for c in clauses if not CONDITION_RE.match(c)] or clauses
    # "分别为1，2，4，3", "顺序是2，4，3，1": the values listed after a stated one are stated too
    listing = False
    for clause in clauses:
        clause = PART_LABEL_RE.sub("", clause.lstrip(":： "))      # "：①9；②8"
        for part in split_words_outside(clause, r"或|\band\b|和"):
            rels = [m for m in RELATION_RE.finditer(part) if at_depth0(part, m.start())]
            if rels:
                lhs = part[rels[-2].end() if len(rels) > 1 else 0:rels[-1].start()]
                listing = True
                if len(rels) == 1 and _is_equation_side(lhs):
                    # "3x + y = 24" states an equation, not the value 24 (but in a chain,
                    # "V = πr^2h = 12π", the last value is stated)
                    stated.append(Value(part.strip(), False, None, "equation"))
                else:
                    stated.append(make_value(part[rels[-1].end():]))
            elif how in ("conclusion", "last_line") and INEQUALITY_RE.search(part) and \
                    _bare_value(CONCLUDES_RE.sub("", part, count=1)).parsed:
                # "∴2≤x≤4": the inequality is what the clause states
                stated.append(_bare_value(CONCLUDES_RE.sub("", part, count=1)))
            else:
                value = _bare_value(part)
                if listing and make_value(part).parsed:       # a value, not "中位数202"
                    stated.append(value)
                else:
                    listing = False
                    bare.append(value)
    if not stated:          # "青年有17万人", "图n中有2n个小黑点"
        stated = [_counted(c[m.end():]) for c in clauses for m in list(COUNT_RE.finditer(c))[-1:]]
    out = stated if stated or how not in ("boxed", "marker") else bare
    # "输出S=…的值": what is computed, not a value
    return [v for v in out if v.text and not (v.kind == "text" and v.text.endswith("的值"))]


def _magnitude(after: str) -> str:
    """The order of magnitude written right after a number ("万" of "498万元"), or ""."""
    found = re.match(r"\s*(万亿|亿|万)", after)
    return found.group(0).strip() if found else ""


def _counted(rest: str) -> Value:
    """The value a count states: "17$$万人" -> 170000, "2n 个小黑点" -> 2n."""
    value = make_value(rest)
    if value.kind == "text":
        found = re.match(r"[^\u3400-\u9fff]*(?:万亿|亿|万)?", rest)   # matches every text
        lead = found.group(0) if found else ""
        counted = make_value(lead)
        if counted.kind == "math" and counted.parsed:
            return counted
    return value


# "解集(-1, 2)", "答案 x>3": words before the value a marked answer states
LEADING_WORDS_RE = re.compile(r"^[\u3400-\u9fff]+[\s:：]*(?=[$\\(\[{\-\d]|[a-zA-Z](?![a-zA-Z]))")


def _bare_value(part: str) -> Value:
    """A marked answer's value without a relation word; words before it ("解集", "答案") are
    dropped when what follows reads as math."""
    value = make_value(part)
    if value.kind == "text":
        rest = LEADING_WORDS_RE.sub("", strip_wrappers(part).lstrip(":： "), count=1)
        stripped = make_value(rest)
        if rest and stripped.kind == "math" and stripped.parsed:
            return stripped
    return value


def _is_collection(v: Value) -> bool:
    """A reference value with several elements (a set, a tuple, a point)."""
    import sympy

    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, (sympy.FiniteSet, sympy.Tuple)) or (
        isinstance(obj, sympy.Interval) and not obj.is_empty)


def _words_only(v: Value) -> bool:
    """A reference in words that writes no number in any form (digits, number words)."""
    return v.kind == "text" and bool(CJK_RE.search(v.text)) and not mentioned_numbers(v.text)


def _symbolic(v: Value) -> bool:
    """A stated value that is no number: segment or angle names, or unknowns (BD + 2, r - d)."""
    import sympy

    if v.kind == "relation_geo":
        return True
    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, sympy.Expr) and bool(obj.free_symbols)


def any_same(c: Value, alts: tuple[Value, ...]) -> bool | None:
    """A candidate against a solution's alternative spellings."""
    if alts and (c.kind == "circled") != all(a.kind == "circled" for a in alts) and (
            constant(c) or all(constant(a) for a in alts)):
        return False     # statement numbers (①②④) for a number, or a number for statements
    if alts and constant(c) and all(_words_only(a) for a in alts):
        return False     # a number for a name or statement in words ("新手是11" for "小林")
    if alts and all(constant(a) for a in alts):
        if c.bare_number is not None:     # a number was asked for: "500m" is 500 metres
            c = make_value(c.bare_number)
        elif _symbolic(c):
            return False          # a number was asked for; the answer is no number
    # against a reference such as "4m" (4 metres or 4 times m) an answer is wrong only when
    # it is neither
    results = [r if r is not False or a.bare_number is None else
               (False if same_value(c, make_value(a.bare_number)) is False else None)
               for a in alts for r in [same_value(c, a)]]
    if any(r is True for r in results):
        return True
    if results and all(r is False for r in results):
        return False
    return None


def grade_final(reference: Reference, response: str,
                 whole: bool = True) -> tuple[str | None, bool | None]:
    """The final statement of the response against the reference."""
    region, how = final_region(response)
    if how in ("blank", "no_answer"):
        return f"({how})", False            # no definite answer: the judge's rule says No
    if region is None:
        return None, None
    cands = candidates(region, how)
    if len(cands) == 1 and re.fullmatch(r"[A-H]", cands[0].text.strip("()（）{} :：∶")):
        # "故选B" in a question whose options are in the figure: the statement before it
        before = _before_letter(response)
        if before is None:
            return cands[0].text, None
        return grade_final(reference, before, whole)
    if not cands:
        if BLANK_RE.search(region):
            return "(blank)", False          # "面积为\\underline{}": the answer is left blank
        return strip_wrappers(region)[:200] or None, None
    extracted = "; ".join(c.text for c in cands)[:200]
    blanks = reference.blanks
    if how in ("boxed", "marker") and not reference.not_unique and _numberless(region) and all(
            sol and all(numeric(a) for a in sol) for b in blanks for sol in b):
        return extracted, False              # "答案：射线OP是角AOB的平分线" for a number, a point
    if how in ("boxed", "marker") and not reference.not_unique and _names_no_statement(region) \
            and all(a.kind == "circled" for b in blanks for sol in b for a in sol):
        return extracted, False              # "答案：正确的结论是四边形AEPF的面积…" for ①②③④
    if how in ("boxed", "marker") and whole and len(blanks) == 1 and len(blanks[0]) == 1 and \
            reference_absent(reference, strip_wrappers(region)):
        return extracted, False              # "答案：E站应建在距A站24千米的地方" for 12
    if len(blanks) == 1 and len(blanks[0]) == 1:
        alts = blanks[0][0]
        if len(cands) > 1 and any(_is_collection(a) for a in alts):
            # "x=5，y=8" against "$$5，8$$": the values together are the answer
            joined = any_same(make_value(", ".join(c.text for c in cands)), alts)
            return extracted, True if joined is True else None
        results = [any_same(c, alts) for c in cands]
        if results and all(r is True for r in results):
            return extracted, True
        if results and all(r is False for r in results):
            return extracted, None if reference.not_unique else False
        return extracted, None
    if len(blanks) == 1:                            # several solutions: all must be given
        sols = blanks[0]
        if reference.not_unique:                    # ... or any one, if the key says so
            results = [any(any_same(c, s) is True for s in sols) for c in cands]
            return extracted, True if all(results) else None
        return extracted, _same_sets(cands, sols)
    if len(cands) != sum(len(b) for b in blanks):   # several blanks: one value for each
        if not reference.not_unique and (how in ("boxed", "marker") or (
                whole and how == "conclusion" and all(constant(c) for c in cands))) and \
                _none_of(cands, blanks):
            return extracted, False          # a final answer that is none of the values
        return extracted, None
    flat = [s for b in blanks for s in b]
    return extracted, _same_sets(cands, flat)


def _before_letter(response: str) -> str | None:
    """The response before a closing "故选：B" (on its line, after a statement), or None."""
    text = response.rstrip()
    m = re.search(r"(?:故|所以|因此|应)?\s*选\s*[:：∶]?\s*\$*\s*[({]*\s*[A-H]\s*[)}]*\s*\$*[.。．]?$",
                  text)
    if m is None or not text[:m.start()].strip(" \t,，;；.。．\n"):
        return None
    return text[:m.start()]


# how an answer may name statements by number: ①, (1), 第1个, "1、3", or a bare "13"
STATEMENT_NUMBER_RE = re.compile(r"[①-⑩]|[(（]\s*\d+\s*[)）]|第\s*[一二三四五六七八九十\d]|"
                                 r"(?<![\d./])\d(?:\s*[、,，和及与]\s*\d)+(?![\d./])|^[\d\s,，、]+$")


def _names_no_statement(region: str) -> bool:
    """A marked answer that names no statement by its number in any way (for a reference of
    statement numbers, "①②④")."""
    return not STATEMENT_NUMBER_RE.search(strip_wrappers(region))


def _numberless(region: str) -> bool:
    """A marked answer that writes no number in any form (digits, fractions, number words,
    pi, roots): it cannot state a numeric reference."""
    text = strip_wrappers(region)
    return not mentioned_numbers(text) and not re.search(r"\\pi|π|√|\\sqrt|根号", text)


def _none_of(cands: list[Value], blanks: tuple) -> bool:
    """Every candidate differs from every solution of every blank; or, with some blanks in
    words, every candidate is a number and differs from every number of the reference."""
    if all(any_same(c, sol) is False for c in cands for b in blanks for sol in b):
        return True
    numbers = [sol for b in blanks for sol in b if sol and all(constant(a) for a in sol)]
    return bool(numbers) and all(constant(c) for c in cands) and \
        all(any_same(c, sol) is False for c in cands for sol in numbers)


def _same_sets(cands: list[Value], sols: list | tuple) -> bool | None:
    """Every solution stated and nothing else, in any order: True; a difference the rules are
    sure of: False; otherwise None."""
    table = [[any_same(c, s) for s in sols] for c in cands]
    every_sol = all(any(table[i][j] is True for i in range(len(cands))) for j in range(len(sols)))
    every_cand = all(any(r is True for r in row) for row in table)
    if every_sol and every_cand:
        return True
    if all(r is not None for row in table for r in row):
        return False
    return None
