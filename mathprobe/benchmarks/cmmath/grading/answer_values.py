"""Values of CMMaTH answers: a stated answer or a reference answer normalised (units, degrees,
LaTeX spellings) and parsed by math-verify, and compared: equivalent, different, or not
comparable by rules."""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mathprobe.benchmarks.cmmath.grading.response_text import CJK_RE, canonical, strip_wrappers

NO_ANSWER = ("暂无", "无", "略")   # "not available": the record carries no reference answer


UNITS = sorted([
    "平方厘米", "平方分米", "平方千米", "平方毫米", "平方米", "平方单位", "立方厘米", "立方分米",
    "立方米", "立方单位", "厘米", "毫米", "分米", "千米", "公里", "米", "英尺", "度", "元", "分钟",
    "小时", "秒", "天", "人", "个", "名", "本", "块", "次", "步", "尺", "千克", "克", "吨",
    "毫升", "升", "倍", "条", "只", "根", "张", "页", "辆", "棵", "件", "种", "岁", "周", "年",
    "分", "单位", "处", "枚", "盒", "箱", "瓶", "支", "间", "户", "家", "株", "头", "匹", "朵",
    "颗", "粒", "份", "套", "双", "台", "部", "架", "艘", "座", "所", "栋", "组", "队", "班",
    "场", "题", "道", "首", "篇", "斤", "公斤", "公顷", "亩",
], key=len, reverse=True)


UNIT_RE = re.compile("(?:" + "|".join(UNITS) + r")$")


# "240（平方厘米）", "31(岁)", "3 (cm)": a unit in brackets after the value
PAREN_UNIT_RE = re.compile(r"(?<=[\d}])\s*\(\s*(?:" + "|".join(UNITS)
                           + r"|(?:cm|mm|dm|km|m|kg|g|min|h|s)(?:\^?\{?[23]\}?|[²³])?)\s*\)$")


LATIN_UNIT_RE = re.compile(
    r"(?:\\(?:mathrm|text|rm)\s*\{\s*([a-z]{1,3})\s*\}|\{\s*([a-z]{1,3})\s*\}|"
    r"\\rm\s*([a-z]{1,3})|(?<=[\d\s}])(cm|mm|dm|km|kg|min))"
    r"(?:\s*(?:\^\s*\{?\s*[23]\s*\}?|[²³]))?\s*$")


# metre-based units however braced: "cm", "{cm}", "c{{m}^{2}}", "{c}{{{m}}^{3}}"
METRE_TAIL_RE = re.compile(r"(?<![A-Za-z\\])((?:\{\s*)*(?:[ckdm]\s*(?:\}\s*)*(?:\{\s*)*)?m(?:\s*\})*"
                           r"(?:\s*\^\s*(?:\{\s*)*[23](?:\s*\})*)?(?:\s*\})*)\s*$")


ENGLISH_UNIT_RE = re.compile(
    r"\s*(?:square\s+|cubic\s+)?(?:units?|degrees?|meters?|metres?|centimeters?|centimetres?|"
    r"kilometers?|kilometres?|people|persons?|students?|yuan|minutes?|hours?|seconds?|days?)\s*$",
    re.IGNORECASE)


KNOWN_LATIN_UNITS = {"cm", "mm", "dm", "km", "m", "kg", "g", "min", "h", "s"}


# "4m": 4 metres or 4 times m? A bare one-letter unit after a number is ambiguous.
BARE_UNIT_RE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:m|h|s|g)(?:\s*\^?\s*\{?[23]\}?)?")


DEGREE_RE = re.compile(r"\{\s*\}\s*\^\s*\{?\s*\\circ\s*\}?|\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|"
                       r"\{\s*\^\s*\{?\\circ\}?\s*\}|°|\\circ|度")


def _math_timeout() -> int | None:
    """math-verify's timeouts use SIGALRM, which only the main thread may set."""
    return 5 if threading.current_thread() is threading.main_thread() else None


@dataclass(frozen=True)
class Value:
    text: str            # normalised text, as compared
    degrees: bool        # carried a degree sign
    parsed: Any = None   # math-verify's parse, or None when it could not parse
    kind: str = "math"   # math | text | relation_geo | circled | equation
    bare_number: str | None = None   # "4" of "4m": the number, if the letter is a unit


# "300\\mathrm{m}", "5\\text{ cm}^2": a unit set in text mode is a unit, never a variable
TEXT_UNIT_RE = re.compile(r"(?<=[\d}])\s*\\(?:mathrm|text|rm)\s*\{\s*(?:cm|mm|dm|km|m|kg|g|min|h|s)\s*\}"
                          r"(?:\s*\^\s*\{?\s*[23]\s*\}?)?\s*$")


def _normalise_value(raw: str) -> tuple[str, bool]:
    s = strip_wrappers(TEXT_UNIT_RE.sub("", raw.strip().strip("$").strip()))
    s = s.replace("（", "(").replace("）", ")").replace("，", ",").replace("：", ":")
    s = s.replace("＞", ">").replace("＜", "<")
    s = s.replace("＝", "=").replace("≤", "\\le ").replace("≥", "\\ge ").replace("≠", "\\ne ")
    s = s.replace("\\leqslant", "\\le").replace("\\geqslant", "\\ge").replace("\\colon", ":")
    s = re.sub(r"\{\s*(arc(?:sin|cos|tan))\s*\}", r"\\\1", s)
    s = re.sub(r"(?<!\\)\barc(sin|cos|tan)", r"\\arc\1", s)
    degrees = bool(DEGREE_RE.search(s))
    s = DEGREE_RE.sub("", s).strip()
    for _ in range(3):                   # "8平方厘米", "5{cm}", "3\\mathrm{cm}^{2}", "10人"
        before = s
        s = PAREN_UNIT_RE.sub("", s).strip()
        s = UNIT_RE.sub("", s).strip()
        s = ENGLISH_UNIT_RE.sub("", s).strip() if re.search(r"[\d}]\s*[A-Za-z ]+$", s) else s
        m = METRE_TAIL_RE.search(s)
        if m and ("{" in m.group(1) or re.match(r"[{\s]*[ckdm]\s*[{}\s]*m", m.group(1))) \
                and re.search(r"[\d})]\s*$", s[:m.start()]):
            s = s[:m.start()].strip()       # (a bare "4m" stays: 4 metres or 4 times m)
        m = LATIN_UNIT_RE.search(s)
        if m and next(g for g in m.groups() if g) in KNOWN_LATIN_UNITS \
                and re.search(r"[\d}\)]\s*$", s[:m.start()]):
            s = s[:m.start()].strip()
        if s == before:
            break
    s = _magnitude(s)
    s = s.replace("{+}", "+").replace("{-}", "-").replace("{}", "").replace("﹣", "-")
    s = re.sub(r"根号\s*(\d+(?:\.\d+)?|\{[^{}]*\})", lambda m: "\\sqrt{" + m.group(1).strip("{}") + "}", s)
    s = _braced_fractions(s)
    s = s.replace("π", "\\pi ").replace("×", "\\times ").replace("÷", "/").replace("·", "\\cdot ")
    s = s.replace("²", "^2").replace("³", "^3").replace("∞", "\\infty ").replace("−", "-")
    s = re.sub(r"√\s*\(([^()]*)\)", r"\\sqrt{\1}", s)
    s = re.sub(r"√\s*\{([^{}]*)\}", r"\\sqrt{\1}", s)
    s = re.sub(r"√\s*([0-9.]+|[a-zA-Z])", r"\\sqrt{\1}", s)
    s = re.sub(r"(\d)\s*%|\\%", lambda m: (m.group(1) or "") + "/100", s)
    s = re.sub(r"\s+", " ", s).strip()
    s = _ascending(s)
    while s.startswith("{") and s.endswith("}") and "," not in s and _balanced(s[1:-1]):
        s = s[1:-1].strip()           # "{{58}}": grouping braces, not a set
    return s, degrees


_GREATER = {">": "<", "\\ge": "\\le", "\\geq": "\\le", "\\gt": "<"}
_CHAIN_RE = re.compile(r"\s*(>|<|\\(?:geq?|leq?|gt|lt)(?![a-zA-Z]))\s*")


def _ascending(s: str) -> str:
    """"b>a>c" -> "c<a<b", "1>x\\ge -2" -> "-2\\le x<1": a chain of inequalities that all
    point one way (greater) written the other way, so the two spellings compare equal."""
    pieces = _CHAIN_RE.split(s)
    relations = pieces[1::2]
    if not relations or any(r not in _GREATER for r in relations) or \
            any(not p.strip() or not _balanced(p) or p.count("(") != p.count(")")
                or p.count("[") != p.count("]") for p in pieces[::2]):
        return s
    out = pieces[::-1]
    return " ".join(_GREATER.get(p, p) if k % 2 else p.strip() for k, p in enumerate(out))


_FRAC_ARG = r"(\{[^{}]*\}|\\[a-zA-Z]+|[0-9a-zA-Z])"
_FRAC_RE = re.compile(r"\\frac\s*" + _FRAC_ARG + r"\s*" + _FRAC_ARG)


def _braced_fractions(s: str) -> str:
    """"\\frac\\pi6" -> "\\frac{\\pi}{6}", "\\frac12" -> "\\frac{1}{2}": a fraction's arguments
    braced, as the parser reads them."""
    def brace(arg: str) -> str:
        return arg if arg.startswith("{") else "{" + arg + "}"
    return _FRAC_RE.sub(lambda m: "\\frac" + brace(m.group(1)) + brace(m.group(2)), s)


MAGNITUDES = {"万亿": 12, "亿": 8, "万": 4}
MAGNITUDE_RE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(万亿|亿|万)")


def _magnitude(s: str) -> str:
    """"3.6万" -> "36000", "148万亿" -> "148000000000000": a number with a Chinese order of
    magnitude, written out (on both sides of a comparison alike)."""
    m = MAGNITUDE_RE.fullmatch(s)
    if m is None:
        return s
    from decimal import Decimal

    value = Decimal(m.group(1)).scaleb(MAGNITUDES[m.group(2)])
    return format(value.normalize(), "f")


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@lru_cache(maxsize=1)
def _latex_config() -> list:
    from latex2sympy2_extended.latex2sympy2 import NormalizationConfig
    from math_verify import LatexExtractionConfig

    # units=False: math-verify would drop letters it takes for units ("4m" -> 4, "2h" -> 2);
    # units are dropped here, before parsing, where it is safe.
    return [LatexExtractionConfig(boxed_match_priority=0, normalization_config=NormalizationConfig(
        basic_latex=True, units=False, malformed_operators=True, nits=True, boxed="all",
        equations=False))]


# Parses and comparisons are cached by normalised text: the same answer or reference is parsed
# once per process however many options, graders or re-gradings ask for it, and the same pair
# of values is compared once (sympy / math-verify dominate the rule stage's time).
CACHE_SIZE = 65536


@lru_cache(maxsize=CACHE_SIZE)
def _parse_math(s: str) -> Any:
    from math_verify import parse

    if not s or CJK_RE.search(s):
        return None
    try:
        out = parse(f"${s}$", extraction_config=_latex_config(), fallback_mode="no_fallback",
                    parsing_timeout=_math_timeout())
    except Exception:   # noqa: BLE001 - a value the parser cannot read is undecided
        return None
    return out or None


def same_value(a: Value, b: Value) -> bool | None:
    """Equivalent (True), different (False), or not comparable by rules (None)."""
    kinds = {a.kind, b.kind}
    if "equation" in kinds:
        return None
    if "circled" in kinds:
        return (a.text == b.text) if kinds == {"circled"} else None
    if kinds & {"text", "relation_geo"}:
        return True if canonical(a.text) == canonical(b.text) else None
    if a.parsed is None or b.parsed is None:
        return None
    if a.degrees != b.degrees:
        if "\\pi" not in a.text + b.text:
            return _verify(a.text, b.text)
        # 30° against pi/6: the same angle, or not comparable by rules
        deg, rad = (a, b) if a.degrees else (b, a)
        return True if _verify(f"({deg.text})*\\pi/180", rad.text) else None
    return _verify(a.text, b.text)


@lru_cache(maxsize=CACHE_SIZE)
def _verify(a_text: str, b_text: str) -> bool | None:
    """math-verify's equivalence of two parsed values (their parses come from the cache)."""
    from math_verify import verify

    try:
        return bool(verify(_parse_math(a_text), _parse_math(b_text),
                           timeout_seconds=_math_timeout()))
    except Exception:   # noqa: BLE001
        return None


GEO_NAME_RE = re.compile(r"(?<![\\a-zA-Z])[A-Z]{2,}|\\angle|∠|\\triangle|△|∥|//|\\parallel|⊥|\\perp")


CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"


MATH_WORDS_RE = re.compile(r"\\[A-Za-z]+|\b(?:sin|cos|tan|cot|sec|csc|log|ln|lg|exp|arcsin|arccos|"
                           r"arctan|sqrt|max|min|lim|mod)\b")


def _has_words(s: str) -> bool:
    """English words ("6 square units", "the area"): text, not a product of letters."""
    return bool(re.search(r"[A-Za-z]{3,}", MATH_WORDS_RE.sub(" ", s)))


# an ordinal with what it counts: "第4个月份", "第14天", "第3组"
ORDINAL_RE = re.compile(r"第\s*(\d+)\s*(?:个|位|名|次|组|天|年|周|层|排|行|列|项|号)?\s*"
                        r"[\u4e00-\u9fff]{0,3}")


@lru_cache(maxsize=CACHE_SIZE)
def make_value(raw: str) -> Value:
    s, degrees = _normalise_value(raw)
    if not s:
        return Value("", degrees, None, "text")
    bare = re.sub(r"[\s{},、和与及]", "", s)
    if bare and all(ch in CIRCLED for ch in bare):
        # statement numbers ("which are true?": ①②④): compared as sets
        return Value("".join(sorted(set(bare), key=CIRCLED.index)), degrees, None, "circled")
    ordinal = ORDINAL_RE.fullmatch(s)
    if ordinal:                         # "第4个月份", "第14天": the number
        return make_value(ordinal.group(1))
    if CJK_RE.search(s) or _has_words(s):
        return Value(s, degrees, None, "text")
    if GEO_NAME_RE.search(s):
        # Segment, angle and figure names (AB, ∠ABC): sympy would read AB as a product, so
        # AB = BA and ABC = CBA; compared as text only.
        return Value(s, degrees, None, "relation_geo")
    unit = BARE_UNIT_RE.fullmatch(s)
    return Value(s, degrees, _parse_math(s), bare_number=unit.group(1) if unit else None)


def numeric(v: Value) -> bool:
    """A value with no unknowns: a number, or a point, interval or set of numbers."""
    import sympy

    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, (sympy.Expr, sympy.Tuple, sympy.Set)) and not obj.free_symbols


def constant(v: Value) -> bool:
    """A value that is a plain number (no unknowns, no relation, no set)."""
    import sympy

    if v.kind != "math" or not v.parsed:
        return False
    obj = v.parsed[0]
    return isinstance(obj, sympy.Expr) and not obj.free_symbols
