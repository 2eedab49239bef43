"""Questions in several parts: a reference such as "(1)$$202$$．\\n(2)$$\\frac{3}{5}$$" is graded
part by part against the matching parts of the response ("(1) ... (2) ..."), each part as a
free-form answer of its own."""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.grading.extraction import CONCLUDES_RE
from mathprobe.benchmarks.cmmath.grading.reference_answer import name_key, word_name
from mathprobe.benchmarks.cmmath.grading.response_text import (
    at_depth0,
    clean_text,
    split_outside,
    strip_wrappers,
)

_N = r"\s*([1-9]|[ⅠⅡⅢⅣⅤ]|I{1,3}|IV|V)\s*"
# "(1)", "（Ⅱ）", or the label alone in math, "$$(1)$$" (not the "$$" that opens the answer)
LABEL_RE = re.compile(r"\$+[ \t]*[(（]" + _N + r"[)）][ \t]*\$+|[(（]" + _N + r"[)）]")
ROMAN = {"Ⅰ": 1, "Ⅱ": 2, "Ⅲ": 3, "Ⅳ": 4, "Ⅴ": 5, "I": 1, "II": 2, "III": 3, "IV": 4, "V": 5}


# the sub-parts of a part: "(2)①30人和20人；②$$\\frac{3}{10}$$"
SUBLABEL_RE = re.compile(r"([①-⑩])")


def _number(m: re.Match) -> int:
    label = next(g for g in m.groups() if g)
    if label.isdecimal():              # ("①".isdigit() is true)
        return int(label)
    return ROMAN[label] if label in ROMAN else ord(label) - ord("①") + 1


def reference_parts(gold: str, labels_re: re.Pattern = LABEL_RE) -> list[str] | None:
    """The parts of a reference that starts with "(1)" (or with `labels_re`'s first label,
    "①") and numbers its parts 1, 2, ... in order (at least two), or None."""
    text = gold.strip()
    labels = list(labels_re.finditer(text))
    if not labels or labels[0].start() != 0:
        return None
    starts, want = [], 1
    for m in labels:
        if _number(m) == want:
            starts.append(m)
            want += 1
    if len(starts) < 2:
        return None
    return [text[m.end():(starts[k + 1].start() if k + 1 < len(starts) else len(text))].strip()
            for k, m in enumerate(starts)]


def response_parts(response: str, n: int,
                   labels_re: re.Pattern = LABEL_RE) -> list[str] | None:
    """The response's answers to parts 1..n: the last "(n)" label, the last "(n-1)" before it,
    and so on (so a plan in an analysis section, or "由(1)知" inside a later part, is passed
    over), each part up to the next label. None if some label is missing."""
    labels = [(m, _number(m)) for m in labels_re.finditer(response)]
    chosen: list[re.Match] = []
    limit = len(response)
    for want in range(n, 0, -1):
        hit = next((m for m, k in reversed(labels) if k == want and m.start() < limit), None)
        if hit is None:
            return None
        chosen.append(hit)
        limit = hit.start()
    chosen.reverse()
    return [response[m.end():(chosen[k + 1].start() if k + 1 < n else len(response))]
            for k, m in enumerate(chosen)]


# -- values given to names ("a=0.05", "∴\hat{b}=...=5.5") -------------------------------------

_NAME_VALUE_RE = re.compile(r"(?<![<>!=])(?:=|＝|≈|\\approx)(?!=)")
_WORD_VALUE_RE = re.compile(r"约等于|等于|约为|应为|为|是|[:：]|(?<![<>!=])(?:=|＝|≈|\\approx)(?!=)")
CONDITION_END_RE = re.compile(r"([^\u3400-\u9fff]+)时")
_NAME_START_RE = re.compile(r".*(?:[\u3400-\u9fff∴∵:：]|\\therefore|\\because)", re.DOTALL)


def named_values(response: str) -> list[tuple[str, str]]:
    """(name, value) of each statement "name = ... = v" in the response, in order: a name in
    symbols ("a", "\\hat{b}") is what precedes the first "=" after any words; a name in words
    ("中位数为55") the words before the first relation word, after any "的"; the value follows
    the last relation."""
    text = clean_text(response)
    out: list[tuple[str, str]] = []
    for clause in split_outside(text, "，,；;。．\n"):
        for piece in re.split(r"[,，;；]", clause.replace("$", " ")):
            for pattern, words in ((_NAME_VALUE_RE, False), (_WORD_VALUE_RE, True)):
                rels = [m for m in pattern.finditer(piece) if at_depth0(piece, m.start())]
                if not rels:
                    continue
                lhs = piece[:rels[0].start()]
                key = name_key(lhs if words else _NAME_START_RE.sub("", lhs))
                value = strip_wrappers(piece[rels[-1].end():])
                at = CONDITION_END_RE.match(value)
                if at and not words:    # "当w=30时f(p)取得最大值": w is 30 (not "b=0.2不成立")
                    value = strip_wrappers(at.group(1))
                if key and value and not key[:1].isdigit() and word_name(key) == words:
                    out.append((key, value))
    return out


def value_named(stated: list[tuple[str, str]], name: str) -> str | None:
    """The value the response last gives `name` (a name in words also matches a longer one
    that ends with it: "年龄中位数" for "中位数"; one given a letter, "设中位数为t", the value
    the letter is given after that)."""
    for k in range(len(stated) - 1, -1, -1):
        key, value = stated[k]
        if key == name or (word_name(name) and key.endswith(name)):
            alias = name_key(value)
            if word_name(name) and re.fullmatch(r"(?:\\[a-z]+)?[a-zA-Z]", alias):
                # "设中位数为t，...，t=70.17": the value given to the letter afterwards
                later = [v for key2, v in stated[k + 1:] if key2 == alias]
                return later[-1] if later else value
            return value
    return None


def concluded_values(response: str, concluding: bool = True) -> list[str]:
    """The value each concluding statement ("所以AC=3√13", "∴x=2") states, in order; with
    `concluding` False, the value of every statement ("平均数为54")."""
    out = []
    for clause in split_outside(clean_text(response), "，,；;。．\n"):
        bare = clause.replace("$", " ")
        if concluding and not CONCLUDES_RE.match(bare):
            continue
        rels = [m for m in _WORD_VALUE_RE.finditer(bare) if at_depth0(bare, m.start())]
        value = strip_wrappers(bare[rels[-1].end():]) if rels else ""
        if value:
            out.append(value)
    return out


def stated_values(response: str) -> list[str]:
    """The value every statement of the response states (after its last relation word)."""
    return concluded_values(response, concluding=False)
