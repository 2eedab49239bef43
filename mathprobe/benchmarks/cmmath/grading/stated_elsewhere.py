"""What a CMMaTH free-form response states besides its final statement, for the answers whose
final statement alone does not decide: statements in words its last lines make ("所以模型②的
拟合效果较好", not negated), the values its concluding statements state one by one ("∴CD=9；…
∴AB=2√13"), the values it gives to the reference's names ("a=0.005，b=0.2"); each says
"right" only, never "wrong" (a value stated along the way may not be the answer)."""
from __future__ import annotations

from mathprobe.benchmarks.cmmath.grading.answer_values import constant, make_value
from mathprobe.benchmarks.cmmath.grading.extraction import final_region
from mathprobe.benchmarks.cmmath.grading.final_statement import any_same, candidates
from mathprobe.benchmarks.cmmath.grading.mentioned_numbers import reference_absent
from mathprobe.benchmarks.cmmath.grading.multipart import (
    concluded_values,
    named_values,
    stated_values,
    value_named,
)
from mathprobe.benchmarks.cmmath.grading.reference_answer import Reference
from mathprobe.benchmarks.cmmath.grading.response_text import CJK_RE, canonical, clean_text

NEGATION = "不没未非无否"


def _statement(blank: tuple) -> str | None:
    """The words a blank states ("模型②的拟合效果较好", at least four Chinese characters), in
    the form lines are compared in; None for a blank that is a value."""
    if len(blank) != 1 or len(blank[0]) != 1 or blank[0][0].kind != "text":
        return None
    want = canonical(blank[0][0].text.rstrip("。．. "))
    return want if len(CJK_RE.findall(want)) >= 4 else None


def _said(wants: list[str], response: str) -> bool:
    """Every statement one of the response's last three lines makes, not negated (no 不/没/未/
    非/无/否 just before it)."""
    lines = [canonical(make_value(ln).text)                     # normalised alike
             for ln in clean_text(response).split("\n") if ln.strip()][-3:]
    return all(any(_says(line, want) for line in lines) for want in wants)


def states_text(reference: Reference, response: str) -> bool:
    """A reference that is statements in words, one per blank ("模型②的拟合效果较好"; "能被录取，
    不能获得高薪职位", each at least four Chinese characters), every one of which one of the
    response's last three lines contains, not negated (no 不/没/未/非/无/否 just before it)."""
    wants = [_statement(b) for b in reference.blanks]
    said = [w for w in wants if w is not None]
    return bool(wants) and len(said) == len(wants) and _said(said, response)


def _says(line: str, want: str) -> bool:
    at = line.rfind(want)
    while at >= 0:
        if not any(ch in NEGATION for ch in line[max(0, at - 2):at]):
            return True
        at = line.rfind(want, 0, at)
    return False


def by_conclusions(reference: Reference, response: str) -> bool:
    """A reference of several blanks whose every value the response states, each in a statement
    of its own: a concluding one ("∴AB=2√13", "所以AC=3√13"), or any statement ("平均数为54")
    when the final statement states reference values and nothing else; a blank that is a
    statement in words ("一班更稳定") said in the last lines."""
    blanks = reference.blanks
    if len(blanks) < 2 or any(len(b) != 1 for b in blanks):
        return False
    # "x=5．一班更稳定": the statements in words among them said in the last lines
    wants = [w for w in map(_statement, blanks) if w is not None]
    blanks = tuple(b for b in blanks if _statement(b) is None)
    if not blanks or (wants and not _said(wants, response)):
        return False
    region, how = final_region(response)
    final = candidates(region, how) if region is not None else []
    if any(not any(any_same(c, b[0]) is True for b in blanks) for c in final):
        return False
    for values in (concluded_values(response), stated_values(response) if final else []):
        stated = [make_value(value) for value in values]
        used: set[int] = set()
        for (alts,) in blanks:
            hit = next((k for k, v in enumerate(stated) if k not in used
                        and any_same(v, alts) is True), None)
            if hit is None:
                break
            used.add(hit)
        else:
            return True
    return False


def by_name(reference: Reference, response: str) -> bool:
    """Every blank of the reference names its value ("a=0.05，b=0.2") and the response last
    gives each of those names that value."""
    if not reference.names or None in reference.names:
        return False
    stated = named_values(response)
    names = [n for n in reference.names if n is not None]      # every one (checked above)
    for name, solutions in zip(names, reference.blanks):
        value = value_named(stated, name)
        if value is None or len(solutions) != 1 or \
                any_same(make_value(value), solutions[0]) is not True:
            return False
    return True


def never_stated(reference: Reference, response: str) -> bool:
    """A reference of one number that no statement of the response states (after a relation
    word: "…为0.44", "P=0.44") in any form, nor within 2% (`mentioned_numbers`): the response never
    gave it as a result, even if the number occurs in its working."""
    blanks = reference.blanks
    if len(blanks) != 1 or len(blanks[0]) != 1 or not all(constant(a) for a in blanks[0][0]):
        return False
    return reference_absent(reference, "\n".join(stated_values(response)))
