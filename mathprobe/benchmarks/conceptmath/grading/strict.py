"""ConceptMath's strict grader (ours, not the paper's): the model's final answer only (the last
"answer is" / "答案是" / \\boxed{...}), compared by exact equivalence with math-verify after
normalising percents, units and Chinese answer phrases. Reports name it apart from `official`.
"""
from __future__ import annotations

import contextlib
import functools
import io
import logging
import math
import re

# math-verify warns once per process that its timeouts are off (they rely on SIGALRM, which
# only the main thread has; grading runs in worker threads too).
logging.getLogger("math_verify").setLevel(logging.ERROR)

# The rules:
# 1. The final answer: of the last \boxed{...} (with the other boxes on its line), the last
#    '#### ...' line and the last answer phrase ('the answer is', 'final answer:', 'the answer
#    to ... is', '答案是', '答案为', '答案：', '结果是' ...; the sentence after it), whichever
#    comes last; without any, the last number-bearing sentence of the response.
# 2. Its value: number words become digits (all of them: 'fourth' and 'eleven' too); a
#    justifying clause after a stated value goes (', since ...'); then what follows the last
#    '=' / 'is' / 'are' / '是' ... that a number directly follows (the first, for list golds).
# 3. Equivalence, per item: the same string; or the same number (fractions, mixed numbers,
#    decimals, thousands separators, pi, percent: 25% = 0.25, and a percent and its bare
#    number: gold 17% vs 17); or a rounded decimal (the answer shown to >= 2 decimals is the
#    gold rounded, or the gold shown to >= 1 decimal is the answer rounded); else math-verify
#    on the two expressions (LaTeX, roots, powers, symbols). No 5% tolerance.
# 4. A single gold: the value's first number (or the whole expression) must match, and a hedge
#    between different values ('5 or 6') is wrong. A list gold: the answer's values, as a set,
#    must equal the gold's, no more, no fewer.
# A NaN gold, or no final answer, is wrong.

STRICT_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "first": 1, "second": 2,
    "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "half": "1/2", "quarter": "1/4",
}
STRICT_WORD_RE = re.compile(r"\b(" + "|".join(sorted(STRICT_WORDS, key=len, reverse=True))
                            + r")\b", re.IGNORECASE)

BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")
HASHES_RE = re.compile(r"^\s*####\s*(.+?)\s*$", re.MULTILINE)
ANSWER_PHRASE_RE = re.compile(
    r"final answer\s*(?:is)?\s*[:：]?"
    r"|\banswer\b(?:\s*\([^)\n]*\))?[^.\n:：=]{0,60}?\b(?:is|are|would be|will be)\b\s*[:：]?"
    r"|\banswer\s*[:：=]"
    r"|答案\s*(?:应该是|应是|是|为|[:：])"
    r"|结果\s*(?:是|为)",
    re.IGNORECASE)
# A sentence ends at a newline, or at . 。 ! ? ！ ？ that is not a decimal point.
SENTENCE_END_RE = re.compile(r"\n|[。！？!?]|\.(?!\d)")
# Markers after which a sentence states its value.
VALUE_MARKER_RE = re.compile(r"=|≈|≃|\bis\b|\bare\b|\bwas\b|\bwere\b|\bequals?\b|\bbe\b|"
                             r"\bgives?\b|\bget\b|等于|约为|应为|即|(?<![但于还不就])是|(?<!因)为",
                             re.IGNORECASE)
# A trailing clause that justifies rather than states ('..., since 4 x 4 x 4 = 64').
TRAILING_CLAUSE_RE = re.compile(r",?\s+(?:since|because|as|which|where|when|if|so that|while|"
                                r"using|rounded|with)\b|\s\(|，(?:因为|由于)", re.IGNORECASE)
# What may stand between a marker and the value it introduces ('is approximately 5').
VALUE_START_RE = re.compile(
    r"^(?:\s|[:$*(\[{~≈]|approximately|approx\.?|about|around|roughly|nearly|almost|exactly|"
    r"only|just|indeed|(?:equal|equivalent|close) to|a total of|then|therefore|now|still|also|"
    r"at least|at most|the|in|point|quadrant|"
    r"大约|约|等于)*"
    r"(?:[-+−]?\d|[-+−]?\.\d|[-+−]?π|[-+−]?\\(?:pi|sqrt|frac|dfrac|tfrac)\b|[-+−]?\d*\s*\\sqrt)",
    re.IGNORECASE)
NUMBER_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9_.])[-+−]?(?:\d+\s+\d+/\d+"                          # mixed number
    r"|\d+(?:,\d{3})+(?:\.\d+)?(?:/\d+(?:\.\d+)?)?"               # with thousands separators
    r"|\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?"                    # integer, decimal, fraction
    r"|\.\d+)"
    r"(?:\s*\*?\s*(?:π|\\pi\b|pi\b))?(?:\s*%)?"
    r"|(?<![A-Za-z0-9_.])[-+−]?(?:π|\\pi\b)")
LATEX_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{\s*([-+]?\d+(?:\.\d+)?)\s*\}\s*\{\s*(\d+(?:\.\d+)?)\s*\}")
LATEX_FRAC_SHORT_RE = re.compile(r"\\[dt]?frac\s*(\d)(\d)")


def _balanced(text: str, start: int) -> str | None:
    """The text inside the braces that open just before text[start], or None if unbalanced."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def _first_sentence(text: str) -> str:
    m = SENTENCE_END_RE.search(text)
    return (text[:m.start()] if m else text).strip()


def final_answer(response: str | None) -> str | None:
    """Step 1: the text that states the model's final answer, or None. Of the last \\boxed{}
    (with the other boxes on its line), the last '####' line and the last answer phrase, the
    one that comes last in the response wins; without any, the last number-bearing sentence."""
    if not response or not response.strip():
        return None
    found: list[tuple[int, str]] = []
    balanced = [(m.start(), _balanced(response, m.end())) for m in BOXED_RE.finditer(response)]
    boxes = [(pos, inner.strip()) for pos, inner in balanced if inner and inner.strip()]
    if boxes:
        last_pos = boxes[-1][0]
        line_start = response.rfind("\n", 0, last_pos) + 1
        same_line = [inner for pos, inner in boxes if pos >= line_start]
        found.append((last_pos, ", ".join(same_line)))
    hashes = list(HASHES_RE.finditer(response))
    if hashes:
        found.append((hashes[-1].start(), hashes[-1].group(1).strip()))
    phrases = list(ANSWER_PHRASE_RE.finditer(response))
    if phrases:
        span = _first_sentence(response[phrases[-1].end():].lstrip(" \t*:："))
        if span:
            found.append((phrases[-1].start(), span))
    if found:
        return max(found, key=lambda f: f[0])[1]
    for line in reversed(response.strip().splitlines()):
        if re.search(r"\d", line) or STRICT_WORD_RE.search(line):
            sentences = [s for s in SENTENCE_END_RE.split(line) if s.strip()]
            for sentence in reversed(sentences):
                if re.search(r"\d", sentence) or STRICT_WORD_RE.search(sentence):
                    return sentence.strip()
    return None


def _tidy(text: str) -> str:
    """Markdown, LaTeX wrappers, units in \\text{}, odd minus signs and percent signs away."""
    text = text.replace("**", "").replace("`", "")
    text = re.sub(r"\\(?:text|mathrm|mbox|textbf|operatorname)\s*\{([^{}]*)\}", r" \1 ", text)
    text = re.sub(r"\\(?:left|right|displaystyle)\b", "", text)
    text = re.sub(r"\\[,;!: ]|~", " ", text)
    text = text.replace("\\%", "%").replace("％", "%").replace("−", "-").replace("﹣", "-")
    text = text.replace("，", ",").replace("：", ":").replace("\u00a0", " ")
    text = re.sub(r"\^\s*\{?\\circ\}?|°|\\degree", "", text)
    text = LATEX_FRAC_RE.sub(r"\1/\2", text)
    text = LATEX_FRAC_SHORT_RE.sub(r"\1/\2", text)
    text = STRICT_WORD_RE.sub(lambda m: str(STRICT_WORDS[m.group(1).lower()]), text)
    return re.sub(r"[ \t]+", " ", text).strip().strip("$").strip()


def _states_value(text: str, marker: re.Match) -> bool:
    return VALUE_START_RE.match(text[marker.end():]) is not None


def answer_value(span: str, first: bool = False) -> str:
    """Step 2: the part of the final answer that states the value: what follows the last
    '=' / 'is' / 'are' ... that a number directly follows ('the value of 1 + 17|b| when
    b = -1 is 18' -> '18'), or with `first` (list answers) the first such ('x = 1 and z = 3'
    -> '1 and z = 3'); else all of it. For a single answer, a justifying clause after a stated
    value goes first ('the cube root of 64 is 4, since 4 x 4 x 4 = 64' -> '... is 4')."""
    text = _tidy(span)
    if not first:
        for clause in TRAILING_CLAUSE_RE.finditer(text):
            head = text[:clause.start()]
            if any(_states_value(head, m) for m in VALUE_MARKER_RE.finditer(head)):
                text = head
                break
    markers = [m for m in VALUE_MARKER_RE.finditer(text) if _states_value(text, m)]
    if markers:
        m = markers[0] if first else markers[-1]
        return text[m.end():].strip(" :")
    return text


def _number(token: str) -> tuple[float, float, bool, bool] | None:
    """(value, the number as shown, was a percent, holds pi) of a number token, or None.
    25% -> (0.25, 25, True, False); 2 1/2 -> (2.5, 2.5, False, False)."""
    t = token.strip().replace("\u2212", "-")
    percent = t.endswith("%")
    t = t.rstrip("%").strip()
    pi = False
    m = re.fullmatch(r"(.*?)\s*\*?\s*(?:π|\\pi|pi)", t)
    if m:
        t, pi = m.group(1).strip(), True
        if t in ("", "+", "-"):
            t += "1"
    sign = -1.0 if t.startswith("-") else 1.0
    t = t.lstrip("+-").strip().replace(",", "")
    try:
        mixed = re.fullmatch(r"(\d+)\s+(\d+)/(\d+)", t)
        if mixed:
            shown = int(mixed.group(1)) + int(mixed.group(2)) / int(mixed.group(3))
        elif "/" in t:
            a, b = t.split("/", 1)
            shown = float(a) / float(b)
        else:
            shown = float(t)
    except (ValueError, ZeroDivisionError):
        return None
    shown *= sign * (math.pi if pi else 1.0)
    return (shown / 100 if percent else shown), shown, percent, pi


def number_tokens(text: str) -> list[str]:
    return [m.group(0).strip() for m in NUMBER_TOKEN_RE.finditer(text)]


def _decimals(token: str) -> int:
    """Decimals shown by a plain decimal token ('4.76%' -> 2); 0 for fractions and pi."""
    m = re.fullmatch(r"\s*[-+\u2212]?[\d,]*\.(\d+)\s*%?\s*", token)
    return len(m.group(1)) if m else 0


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _numbers_equal(gold_tok: str, pred_tok: str) -> bool:
    """Two numbers are the same answer: equal values; a percent and its bare number (gold 17%
    vs 17, gold 5 vs 5%); or a rounded decimal: the answer, shown to d >= 2 decimals, is the
    gold rounded to d, or the gold, shown to d >= 1 decimals, is the answer rounded to d."""
    g, p = _number(gold_tok), _number(pred_tok)
    if g is None or p is None:
        return False
    (gv, g_shown, g_pct, g_pi), (pv, p_shown, p_pct, p_pi) = g, p
    if _close(gv, pv) or (g_pct != p_pct and _close(g_shown, p_shown)):
        return True
    d = _decimals(pred_tok)
    if d >= 2 and not p_pi:
        targets = [gv * (100 if p_pct else 1)] + ([g_shown] if g_pct != p_pct else [])
        if any(_close(round(t, d), p_shown) for t in targets):
            return True
    d = _decimals(gold_tok)
    if d >= 1 and not g_pi:
        targets = [pv * (100 if g_pct else 1)] + ([p_shown] if g_pct != p_pct else [])
        if any(_close(round(t, d), g_shown) for t in targets):
            return True
    return False


MAX_VERIFY_CHARS = 200      # longer 'answers' are prose, not expressions: not worth sympy's time


@functools.lru_cache(maxsize=4096)
def _verify(gold: str, pred: str) -> bool:
    """math-verify on two expressions (LaTeX or plain). Deterministic; math-verify's own
    timeouts (SIGALRM, main thread only) are off, so overlong inputs are refused instead.
    Cached: a list gold compares each pair twice (every gold found, every prediction found),
    and the same answer recurs across settings and re-grades (sympy takes ~5-50 ms a pair)."""
    if len(gold) > MAX_VERIFY_CHARS or len(pred) > MAX_VERIFY_CHARS:
        return False
    from math_verify import parse, verify
    from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig

    configs = [LatexExtractionConfig(), ExprExtractionConfig()]

    def wrap(s: str) -> str:
        s = s.strip().strip("$").strip()
        return f"${s}$"

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            g = parse(wrap(gold), extraction_config=configs, parsing_timeout=None)
            p = parse(wrap(pred), extraction_config=configs, parsing_timeout=None)
            return bool(g and p and verify(g, p, timeout_seconds=None))
    except Exception:
        return False


def strict_gold_items(gold: str) -> list[str]:
    """The gold as a list of items: brackets off, split at top-level commas (not inside
    parentheses); '450,670, 45,607' style lists (thousands separators inside items) split at
    ', ' only."""
    text = gold.strip().replace("，", ",").replace("\u00a0", " ")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if re.search(r"\d,\d{3}(?!\d)", text) and ", " in text and re.search(r"\d,\d", text):
        parts = [p for p in re.split(r",\s+", text)]
    else:
        parts, depth, cur = [], 0, ""
        for ch in text:
            depth += ch in "([{"
            depth -= ch in ")]}"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
    return [_tidy(p) for p in parts if p.strip()]


def _item_equivalent(gold: str, pred: str) -> bool:
    """One gold item against one predicted value (both tidied)."""
    g, p = gold.strip(), pred.strip()
    if not g or not p:
        return False
    if re.sub(r"\s", "", g) == re.sub(r"\s", "", p):
        return True
    gt, pt = number_tokens(g), number_tokens(p)
    g_plain = len(gt) == 1 and gt[0].replace(" ", "") == g.replace(" ", "")
    p_plain = len(pt) == 1 and pt[0].replace(" ", "") == p.replace(" ", "")
    if g_plain and p_plain:
        return _numbers_equal(gt[0], pt[0])
    if g_plain and pt:                   # a plain number gold: the answer's first number
        if _numbers_equal(gt[0], pt[0]):
            return True
    return _verify(g, p)


def strict_correct(gold: str, response: str | None) -> tuple[str | None, bool]:
    """(final answer, correct) under the strict grader."""
    span = final_answer(response)
    if span is None:
        return None, False
    if gold.strip().lower() in ("nan", "", "none"):
        return span, False
    golds = strict_gold_items(gold)
    value = answer_value(span, first=len(golds) > 1)
    if "=" in gold and len(golds) == 1:                       # 'y=2x' -> compare '2x'
        golds = [golds[0].rsplit("=", 1)[-1].strip()]
    tokens = number_tokens(value)
    if len(golds) <= 1:
        g = golds[0] if golds else _tidy(gold)
        if re.search(r"\bor\b|或|还是", value) and len(tokens) > 1:
            # A hedge ('5 or 6') is wrong unless every value it offers is the gold.
            return span, all(_item_equivalent(g, t) for t in tokens)
        return span, _item_equivalent(g, value)
    # A list gold: the answer's values, as a set, equal the gold's.
    preds = tokens
    if not preds or any(_number(x) is None for x in golds):
        preds = [x for x in re.split(r",|;|\band\b|和|与|、", value) if x.strip()]
    ok = (all(any(_item_equivalent(g, p) for p in preds) for g in golds)
          and all(any(_item_equivalent(g, p) for g in golds) for p in preds))
    return span, ok
