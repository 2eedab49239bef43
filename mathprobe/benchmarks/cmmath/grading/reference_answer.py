"""The structure of a CMMaTH reference answer: its blanks (one per line or comma, values
joined by 和 apart), each blank's solutions (joined by 或) and their spellings ("/ ", "##"),
the name a blank gives its value ("a" of "a=0.05", "中位数" of "中位数为55"), whether any
answer will do ("答案不唯一"); what a sentence-like blank states ("…的概率为0.3" is 0.3), and
which of its conditions only restate the question."""
from __future__ import annotations

import re
from dataclasses import dataclass

from mathprobe.benchmarks.cmmath.grading.answer_values import NO_ANSWER, Value, constant, make_value
from mathprobe.benchmarks.cmmath.grading.response_text import (
    CJK_RE,
    ZERO_WIDTH_RE,
    at_depth0,
    canonical,
    in_math,
    split_outside,
    split_words_outside,
    strip_wrappers,
    unbrace_signs,
)

NOT_UNIQUE_RE = re.compile(r"[（(]?\s*(?:答案不唯一|填一个即可|写出一个即可|只需填一个|"
                           r"写一个即可|任写一个)\s*[)）]?")


# "y = 8/x", "E(Y) = 80", "= -2a/3": a reference that names what it gives states its value
# (a name: no operators, digits only in a subscript, "\\overline{x_{M9}}"; the rest holds no
# further "=").
SIMPLE_LHS_RE = re.compile(r"^(?:_\{[^=]*?\}|_\w|[^=\d+\-*/<>≤≥])*?(?:(?<![<>!])=(?!=)|\\approx|≈)\s*"
                           r"(?=[^=]*$)")


PART_LABEL_RE = re.compile(r"^\s*(?:[(（]\s*\d+\s*[)）]|[①-⑩](?=\s*\$*\s*[^①-⑩\s$]))\s*")


@dataclass(frozen=True)
class Reference:
    blanks: tuple[tuple[tuple[Value, ...], ...], ...]   # blanks -> solutions -> alternatives
    not_unique: bool = False
    names: tuple[str | None, ...] = ()      # per blank, what it names ("a" of "a=0.05")


def name_key(lhs: str) -> str:
    """The comparable form of a name a value is given to: "$$\\hat{a}$$ " -> "\\hata"; a name
    in words is its last words, after any "的": "这100名学生的中位数" -> "中位数"."""
    words = re.findall(r"[\u3400-\u9fff]+", re.sub(r"\$[^$]*\$", " ", lhs))
    if words and re.search(r"[\u3400-\u9fff]\s*$", lhs.replace("$", "")):
        return words[-1].rpartition("的")[2]
    s = re.sub(r"\\widehat|\\hat", r"\\hat", lhs).replace("\\dfrac", "\\frac")
    return re.sub(r"[\s{}$]", "", s)


def word_name(name: str) -> bool:
    return bool(CJK_RE.search(name))


# "平均分：73", "众数为65": a name in words, then its value
STATED_RE = re.compile(r"(?:约等于|等于|约为|应为|为|是|[:：=＝≈])")


# "$$a=0.035,b=0.025$$": several values given to names inside one formula are blanks of their own
_ASSIGN = r"\s*[a-zA-Z]\s*=\s*-?[\d.]+\s*"
ASSIGNMENTS_RE = re.compile(r"\$\$(" + _ASSIGN + r"(?:," + _ASSIGN + r")+)\$?\$?")

NAMED_NUMBER_RE = re.compile(r"[\u3400-\u9fff]+\s*(?=\$*\s*-?\d)")


def _reference_value(raw: str) -> Value:
    """A reference blank; one written as a sentence that states its value ("选中的2人都来自高二的
    概率为0.3", "中位数：70.17") is that value (the text after its last relation word, when that
    is a value and what comes before it is words)."""
    value = make_value(raw)
    if value.kind != "text":
        return value
    hits = [m for m in STATED_RE.finditer(raw) if at_depth0(raw, m.start())]
    if not hits:
        named = NAMED_NUMBER_RE.match(raw.strip())      # "平均数15.70": words, then the value
        stated = make_value(raw.strip()[named.end():]) if named else value
        return stated if stated.kind == "math" and stated.parsed else value
    if not CJK_RE.search(raw[:hits[-1].start()]):
        return value
    stated = make_value(raw[hits[-1].end():])
    return stated if stated.kind == "math" and stated.parsed else value


def _blank_name(value: str, named: re.Match | None) -> str | None:
    """What a reference blank names: "a" of "a=0.05", "中位数" of "中位数为$$55$$"."""
    if named:
        lhs = re.sub(r"(?:=|\\approx|≈)\s*$", "", named.group(0))
        return name_key(lhs) if name_key(lhs) and not CJK_RE.search(lhs) else None
    hits = [m for m in STATED_RE.finditer(value) if at_depth0(value, m.start())]
    if hits and _reference_value(value).kind == "math":
        key = name_key(value[:hits[-1].start()])
        return key if word_name(key) and len(key) >= 2 else None
    return None


REFERENCE_CONDITION_RE = re.compile(r"\s*(?:当|若|如果)[^，,；;]*时\s*$")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")


_SETTING_RE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?=-?\d+(?:\.\d+)?")


def _given(value: str, question: str) -> bool:
    """A condition ("当研发经费为13万元时") whose every number the question writes, and every
    setting ("x=2") too, as such (not "当n=3时" for "求当n为何值时")."""
    if not REFERENCE_CONDITION_RE.match(value):
        return False
    asked, bare = set(_NUMBER_RE.findall(question)), canonical(question)
    return all(n in asked for n in _NUMBER_RE.findall(value)) and \
        all(s in bare for s in _SETTING_RE.findall(canonical(value)))


RESPECTIVELY_RE = re.compile(r"分别(?:为|是|抽取|有)[:：]?")


def _respectively(line: str) -> str:
    """"第3，4，5组的频率分别为0.3，0.2，0.1" -> "0.3，0.2，0.1": the values after 分别为,
    not the names listed before it."""
    hits = [m for m in RESPECTIVELY_RE.finditer(line) if not in_math(line, m.start())]
    return line[hits[-1].end():] if len(hits) == 1 else line


def _math_separators(line: str) -> str:
    """"$$1；0.011$$" -> "$$1$$；$$0.011$$": a full-width separator inside math at no bracket
    depth separates two values."""
    out: list[str] = []
    depth, math = 0, False
    for ch in line:
        if ch == "$":
            math = not math if not out or out[-1] != "$" else math
        elif ch in "([{（":
            depth += 1
        elif ch in ")]}）":
            depth = max(0, depth - 1)
        elif ch in "，；" and math and depth == 0:
            out.append("$$" + ch + "$$")
            continue
        out.append(ch)
    return "".join(out)


# "y=-8cos(πt/6)+10 (t≥0)": a function and, in brackets after it, its domain
DOMAIN_RE = re.compile(r"^(.*\S)\s*(?:\\left)?\s*[(（]([^()（）]*(?:\\geqslant|\\leqslant|\\geq|\\leq|\\ge|"
                       r"\\le|[<>≤≥＜＞])[^()（）]*?)(?:\\right)?\s*[)）]\s*(\$*)\s*$", re.DOTALL)


def _domain_apart(value: str) -> list[str]:
    """A function with its domain after it ("…+10 (t≥0)") is two blanks: the function, the
    domain."""
    m = DOMAIN_RE.match(value)
    if m is None or not strip_wrappers(m.group(1)) or not re.search(r"(?<![a-zA-Z\\])[a-z](?![a-zA-Z])",
                                                                    m.group(2)):
        return [value]
    return [m.group(1) + m.group(3), "$$" + m.group(2) + m.group(3)]


def _joined_values(value: str) -> list[str]:
    """"30人和20人" -> ["30人", "20人"]: values joined by 和/与/及, each a number, are blanks of
    their own; anything else is one blank."""
    if make_value(value).kind != "text":
        return [value]
    pieces = split_words_outside(value, r"和|与|及")
    if len(pieces) < 2 or any(not constant(make_value(p)) for p in pieces):
        return [value]
    return pieces


def parse_reference(gold: str, question: str = "") -> Reference | None:
    """The reference answer's structure: blanks (one per line), each a set of solutions
    (joined by 或), each with alternative spellings (joined by '/ ' or '##'). None when there
    is no reference ('暂无'). A condition that restates the `question`'s values is dropped."""
    text = unbrace_signs(ZERO_WIDTH_RE.sub("", gold or "")).strip()
    if not text or strip_wrappers(text) in NO_ANSWER:
        return None
    not_unique = bool(NOT_UNIQUE_RE.search(text))
    text = NOT_UNIQUE_RE.sub("", text)
    text = ASSIGNMENTS_RE.sub(lambda m: "$$，$$".join(m.group(1).split(",")).join(("$$", "$$")),
                              text)
    blanks, names = [], []
    values = [PART_LABEL_RE.sub("", v) for line in text.split("\n")
              for v in split_outside(_respectively(_math_separators(line)), "，,；;。．")]
    # "当研发经费为13万元时，销售额是155万元": a condition that restates the question's values
    # is no blank of its own ("当n=3时", n asked for, is)
    values = [v for v in values if not _given(v, question)] or values
    values = [piece for v in values for piece in _joined_values(v)]
    values = [piece for v in values for piece in _domain_apart(v)]
    for value in values:
        named = SIMPLE_LHS_RE.match(value.strip())
        solutions = []
        for sol in split_words_outside(value, r"或"):
            alts = [SIMPLE_LHS_RE.sub("", a, count=1) for a in re.split(r"##|/\s+(?=\S)", sol)]
            alts = [a for a in alts if strip_wrappers(a)]
            solutions.append(tuple(_reference_value(a) for a in alts))
        if solutions:
            blanks.append(tuple(solutions))
            names.append(_blank_name(value, named))
    return Reference(tuple(blanks), not_unique, tuple(names)) if blanks else None
