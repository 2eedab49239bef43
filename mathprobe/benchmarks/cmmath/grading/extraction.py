"""Where a CMMaTH response states its final answer: the final-answer region of a free-form
response (boxed, after a marker such as 答案：/ Answer:, a concluding 所以 ... line), and the option
letters a choice response names."""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.grading.response_text import (
    ZERO_WIDTH_RE,
    clean_text,
    in_math,
    last_boxed,
    sentence_after,
    strip_wrappers,
)
from mathprobe.options import LETTERS

_MARKERS = [  # final-answer markers, most explicit first (the last occurrence in the text wins)
    r"final\s+answer\s*(?:is)?\s*[:：]?",
    r"the\s+(?:correct\s+)?answer\s+is\s*[:：]?",
    r"\banswer\s*[:：]",
    r"(?:最终|正确)?答案\s*(?:应该是|应为|是|为|[:：])?",
    r"故选\s*[:：]?", r"应选\s*[:：]?", r"所以选\s*[:：]?", r"因此选\s*[:：]?", r"选择?\s*[:：]",
]


MARKER_RE = re.compile("|".join(f"(?:{m})" for m in _MARKERS), re.IGNORECASE)


CONCLUSION_RE = re.compile(r"(?:所以|因此|综上所述|综上|故|从而|即|∴|输出|解得|求得|可得|(?<!否)则|\\therefore\b|"
                           r"(?<![\\A-Za-z])(?:therefore|thus|hence|so)\b)", re.IGNORECASE)


# A clause that concludes ("解得x=18", "所以AC=3√13"): its value is a result, not a step.
CONCLUDES_RE = re.compile(r"\s*\$*\s*(?:解得|求得|可得|所以|因此|故|∴|\\therefore|即|综上|输出)")


RELATION_RE = re.compile(r"约等于|等于|约为|应为|取得?最[大小]值|(?<![因作成认称以])为|(?<![于但还只总可若要凡])是(?!否)|≈|\\approx|=|＝|"
                         r"∈|\\in(?![a-zA-Z])|"
                         r"\b(?:is|are|equals?(?:\s+to)?)\b")


# a count stated as the result ("青年有17万人", "共有35条"): read where no other relation is
COUNT_RE = re.compile(r"(?<![没还只])有(?=\s*\$*\s*-?\d)")


# an inequality stated as the result ("∴2≤x≤4", "所以x>3")
INEQUALITY_RE = re.compile(r"[<>≤≥＜＞]|\\(?:le|ge|leq|geq|leqslant|geqslant|lt|gt)(?![a-zA-Z])")


CHOICE_MARKER_RE = re.compile(        # strong: they introduce the answer
    r"(?:故选|应选|所以选|因此选|选择|正确选项(?:是|为)?|答案(?:是|为|应为)?|"
    r"正确的(?:结论|说法|选项|叙述|命题|判断|序号)(?:编号)?(?:是|为|有)|(?:结论|说法)正确的(?:是|为|有)|"
    r"final\s+answer(?:\s+is)?|correct\s+(?:answer|option)s?(?:\s+(?:is|are))?|"
    r"answer(?:\s+is)?|\\boxed\{)", re.IGNORECASE)


WEAK_CHOICE_MARKER_RE = re.compile(r"选项|options?(?:\s+(?:is|are))?", re.IGNORECASE)


CHOICE_GROUP_RE = re.compile(       # "答案选：B": 选 may come with its own colon
    r"^[\s:：是为\"“「(（\[{$*]*(?:选项|选|option\s*|options\s*)?[\s:：$*(（]*"
    r"((?:[A-H](?:\s*(?:[,，、/&和与及]|and)?\s*)?)+)")


LETTER_WRAPPER_RE = re.compile(
    r"\\(?:text|mathrm|textbf|mathbf|rm|bf)\s*(?:\{\s*\(?\s*([A-H](?:\s*[,，、]?\s*[A-H])*)\s*\)?\s*\}|"
    r"\s([A-H])\b)")


NUMBER_RE = re.compile(r"(?<![A-Za-z\d.^_])-?\d+(?:\.\d+)?(?![\d.]*[A-Za-z])")


CANNOT_RE = re.compile(
    r"无法(?:直接)?(?:得出|求解|求出|计算|确定|给出|判断|回答|解答|得到)|没有(?:正确|确定的?)?答案|"
    r"题目没有答案|方程组?没有解|不能确定|cannot\s+(?:be\s+)?(?:determined?|solved?|calculated?|"
    r"found|answered?)|unable\s+to|no\s+(?:definite\s+)?answer", re.IGNORECASE)


BLANK_RE = re.compile(r"\\underline\s*\{\s*\}|_{3,}|（\s*）|\(\s*\)")


def final_region(response: str) -> tuple[str | None, str]:
    """The part of a response that states its final answer, and how it was found:
    'boxed' (the last \\boxed{}); else whichever of these comes last in the text:
    'marker' (the line after 答案：/ Answer: / 故选), 'conclusion' (the last 所以/因此 ... line
    stating a value), 'number' (such a line with no relation word but exactly one number),
    'blank' (a marked answer left blank: 答案为\\underline{}), 'no_answer' (the response says it
    cannot find the answer: 无法求解, 题目没有答案); else 'last_line' (a short last line stating
    a value); else (None, 'none')."""
    text = clean_text(response)
    boxed = last_boxed(text)
    if boxed is not None and boxed.strip():
        return boxed.strip(), "boxed"
    found: list[tuple[int, str, str]] = []          # (position, region, how)
    for m in reversed(list(MARKER_RE.finditer(text))):
        rest = sentence_after(text, m.end())
        if not rest.strip(" \t:："):                 # "答案为：" with the answer on the next line
            following = text[m.end():].split("\n")[1:]
            rest = next((ln for ln in following if ln.strip()), "")
        if strip_wrappers(rest):
            found.append((m.start(), rest.strip(), "marker"))
            break
        if BLANK_RE.search(rest):
            found.append((m.start(), "", "blank"))
            break
    offset = 0
    lines: list[tuple[int, str]] = []
    for ln in text.split("\n"):
        if ln.strip():
            lines.append((offset, ln))
        offset += len(ln) + 1
    for pos, ln in reversed(lines[-3:]):
        said = _last(CONCLUSION_RE, ln)
        if said is not None:
            region = ln[said.start():].strip()
            if in_math(ln, said.start()):           # "$$\\therefore x=5$$": keep the $$ balanced
                region = "$$" + region
            if RELATION_RE.search(region) or INEQUALITY_RE.search(region) or \
                    COUNT_RE.search(region):
                found.append((pos + said.start(), region, "conclusion"))
                break
            if len(NUMBER_RE.findall(strip_wrappers(region))) == 1:
                found.append((pos + said.start(), region, "number"))
                break
    for pos, ln in reversed(lines[-2:]):
        said = _last(CANNOT_RE, ln)
        if said is not None:
            found.append((pos + said.start(), "", "no_answer"))
            break
    if found:
        pos, region, how = max(found, key=lambda f: f[0])
        if how in ("marker", "conclusion"):
            start = text.find(region.lstrip("$"), pos)
            following = [ln.strip() for ln in text[start + len(region.lstrip("$")):].split("\n")[1:]
                         if ln.strip()]
            if re.search(r"(?:为|是|=|[:：])\s*$", strip_wrappers(region) + (
                    ":" if region.rstrip().endswith(("：", ":")) else "")) and following:
                region = f"{region} {following.pop(0)}"   # "所以，面积为：" + the next line
            while following and re.match(r"\$*\s*=", following[0]):
                region = f"{region} {following.pop(0)}"   # "V = 1/3 × ..." + "= 4/3 cm³"
        return region, how
    if lines and RELATION_RE.search(lines[-1][1]):
        last = lines[-1][1].strip()
        if len(last) <= 120:
            return last, "last_line"
        tail = last[last.rfind("=") + 1:]             # a long computation "... = 71.5g"
        if "=" in last and 0 < len(strip_wrappers(tail)) <= 20:
            return "$$=" + tail if in_math(last, last.rfind("=")) else "=" + tail, "last_line"
    return None, "none"


def extract_choice(response: str, choices: tuple[str, ...]) -> frozenset[str] | None:
    """The option letters the response's final answer names ('故选：AC', 'Answer: A, C',
    '\\boxed{B}', '答案：B. 45.5分钟'), or None when no marked letter answer is found."""
    text = ZERO_WIDTH_RE.sub("", response).replace("$", "").replace("*", "").replace("∶", ":")
    # "故选 \\text C", "故选：\\mathrm{AC}", "\\textbf{(B)}": the letters without their wrapper
    text = LETTER_WRAPPER_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"(?<!\\boxed)\{\s*([A-H])\s*\}", r"\1", text)      # "故选{A}、{D}"
    allowed = set(choices) or set(LETTERS[:4])
    found: frozenset[str] | None = None
    # the last letter answer after a strong marker (答案, 故选, Answer); only without one, the
    # last after a weak one (选项 B, option B), which also occur in the discussion of options
    for pattern in (CHOICE_MARKER_RE, WEAK_CHOICE_MARKER_RE):
        for m in pattern.finditer(text):
            tail = text[m.end():m.end() + 40]
            g = CHOICE_GROUP_RE.match(tail)
            if not g:
                continue
            group = re.sub(r"[^A-H]+$", "", g.group(1))
            after = tail[g.start(1) + len(group):]
            # "AB的长度" is a segment, not options A and B; "B. 45.5" and "B。" are options.
            if after[:1] and not re.match(r"[\s.．。,，;；:：)）\]}!！、选项\"”」]|$", after[:1]):
                continue
            letters = frozenset(re.findall(r"[A-H]", group))
            if letters and letters <= allowed:
                found = letters
        if found is not None:
            break
    if found is None:
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        if lines:
            choice = re.fullmatch(r"[(（\[]?\s*([A-H](?:\s*[,，、]\s*[A-H])*)\s*[)）\]]?[.。]?",
                                  lines[-1])
            if choice and set(re.findall(r"[A-H]", choice.group(1))) <= allowed:
                found = frozenset(re.findall(r"[A-H]", choice.group(1)))
    return found


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of `pattern` in `text`, if any."""
    found = list(pattern.finditer(text))
    return found[-1] if found else None
