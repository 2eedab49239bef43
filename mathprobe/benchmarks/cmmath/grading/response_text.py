"""Text helpers of CMMaTH's answer extraction: splitting outside brackets and $...$, the last
\\boxed{}, and stripping LaTeX wrappers from a stated answer."""
from __future__ import annotations

import re

CJK_RE = re.compile(r"[\u3400-\u9fff]")


ZERO_WIDTH_RE = re.compile(r"[\u200b-\u200f\u2060\ufeff]")


def _outside(text: str, stops: str) -> list[int]:
    """Positions of characters in `stops` that are outside brackets and $...$."""
    depth, in_math, out = 0, False, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "$":
            in_math = not in_math
            while i + 1 < len(text) and text[i + 1] == "$":
                i += 1
        elif ch in "([{（【":
            depth += 1
        elif ch in ")]}）】":
            depth = max(0, depth - 1)
        elif ch in stops and depth == 0 and not in_math:
            out.append(i)
        i += 1
    return out


def in_math(text: str, pos: int) -> bool:
    """Whether `pos` lies inside $...$ / $$...$$."""
    return len(re.findall(r"\$+", text[:pos])) % 2 == 1


def split_outside(text: str, stops: str) -> list[str]:
    cuts = _outside(text, stops)
    parts, last = [], 0
    for c in cuts:
        parts.append(text[last:c])
        last = c + 1
    parts.append(text[last:])
    return [p.strip() for p in parts if p.strip()]


def split_words_outside(text: str, pattern: str) -> list[str]:
    """Split on a regex, but only at matches outside $...$ (words such as 或 / and)."""
    spans, in_math = [], False
    pieces = re.split(f"(\\$+|{pattern})", text)
    buf = ""
    for piece in pieces:
        if piece is None:
            continue
        if piece.startswith("$"):
            in_math = not in_math
            buf += piece
        elif re.fullmatch(pattern, piece) and not in_math:
            spans.append(buf)
            buf = ""
        else:
            buf += piece
    spans.append(buf)
    return [s.strip() for s in spans if s.strip()]


def last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    i, depth = start + len("\\boxed{"), 1
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j]
    return None


def sentence_after(text: str, start: int) -> str:
    """From `start` to the end of its line, or to a full stop (。．) outside $...$ that more
    text follows ("故答案为$$\\frac{21}{4}$$． 【点睛】本题考查...")."""
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    for cut in _outside(line, "。．"):
        if line[cut + 1:].strip():
            return line[:cut + 1]
    return line


# a closing comment on a worked solution ("【点睛】本题考查..."): what follows the answer
COMMENT_RE = re.compile(r"(?<=\S)\s*【(?:点睛|点评|考点|评注|名师点睛|方法点拨)】[\s\S]*$")


# "P(A){=}\\frac{4}{10}", "x{=75}": a sign in braces of its own
BRACED_SIGN_RE = re.compile(r"\{\s*([=＝<>])(?=[^{}]*\})([^{}]*)\}")


def unbrace_signs(text: str) -> str:
    """"{=}" -> "=", "x{=75}" -> "x=75": relation signs out of the braces that hide them."""
    return BRACED_SIGN_RE.sub(r"\1\2", text)


UPRIGHT_SIGN_RE = re.compile(r"\\(?:mathrm|text|rm)\s*\{\s*([＝=，,、；;：:＋+－×÷.．%％])\s*\}")


def clean_text(response: str) -> str:
    """Without zero-width characters, step marks (<STEP3>, ### Step 3:), HTML images (a
    figure after the answer is not where the answer ends) and a closing comment ("【点睛】")."""
    text = ZERO_WIDTH_RE.sub("", response).replace("\r", "")
    text = re.sub(r"<img\b[^>]*>", "", text, flags=re.IGNORECASE)
    text = COMMENT_RE.sub("", text)
    # "x\\mathrm{＝}0.12", "[98\\mathrm{，}100)": a sign set upright is the sign
    text = unbrace_signs(UPRIGHT_SIGN_RE.sub(r"\1", text))
    return re.sub(r"<STEP\s*\d+>|###\s*Step\s*\d+\s*[:：]?|<br\s*/?>", "\n", text,
                  flags=re.IGNORECASE)


def strip_wrappers(s: str) -> str:
    s = ZERO_WIDTH_RE.sub("", s)
    s = s.replace("$", " ").replace("\\*", "*").replace("\\_", "_")
    s = re.sub(r"\\(?:underline|boxed|text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\(?:displaystyle|limits|!|,|;|quad|qquad)", " ", s)
    s = s.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac")
    s = s.replace("\\tfrac", "\\frac").replace("{ }", "")
    s = s.strip().strip("。．.，,;；:：!！?？ ")
    s = re.sub(r"^[“\"'「（(]\s*(?=[^)）]*$)", "", s)
    return s.strip()


def canonical(s: str) -> str:
    return re.sub(r"[\s{}$]", "", s)


def at_depth0(text: str, pos: int) -> bool:
    """Whether `pos` is outside round/square/curly brackets (dollar signs are ignored)."""
    depth = 0
    for ch in text[:pos]:
        if ch in "([{（【":
            depth += 1
        elif ch in ")]}）】":
            depth = max(0, depth - 1)
    return depth == 0
