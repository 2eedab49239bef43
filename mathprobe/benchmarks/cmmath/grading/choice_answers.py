"""How a CMMaTH choice response names its answer when no single marked letter does: several
options listed one per line after the final marker ("所以最终的答案为:\\nA.…\\nB.…"), options
judged one by one ("故A正确；…故D错误"), a claim about all options at once ("所有选项均正确"),
an answer that declines to pick ("无法确定", "可能需要更多信息"), and whether a response names
an option at all (by its letter, or by its content).

The authors' judge prompt (`judge_prompt_authors`) says: "if the model response does not specify a
particular option, and its correctness cannot be determined, the answer consistency should be:
No" — so a response that declines, or that never names the right option in any way, is wrong.
"""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.data.options import option_texts
from mathprobe.benchmarks.cmmath.grading.extraction import CHOICE_MARKER_RE
from mathprobe.benchmarks.cmmath.grading.response_text import (
    ZERO_WIDTH_RE,
    canonical,
    clean_text,
    strip_wrappers,
)

POSITIVE_QUESTION_RE = re.compile(r"正确的(?:是|有|为)|说法正确|叙述正确|结论正确|成立的(?:是|有)")
NEGATIVE_QUESTION_RE = re.compile(r"不正确|错误|不成立|不合理|一定不|个数|几个")
COUNTING_QUESTION_RE = re.compile(r"个数|几个|多少个")
# "A正确", "选项B错误", "C项说法不正确", "AB错误" (not "A是正确的": that may call A the right
# choice)
OPTION_JUDGED_RE = re.compile(r"(?:选项)?((?<![A-Za-z])[A-H](?:\s*[、,，和与及]?\s*[A-H])*)\s*(?:项|选项)?\s*"
                              r"(?:说法|叙述|结论)?\s*(?:都|均)?\s*(不正确|正确|错误)")

# "all options are true / false" said of the options at once
ALL_OPTIONS_RE = re.compile(
    r"(?:所有|全部|四个|每个|各个)(?:的)?选项(?:都|均|全)?(?:是|为)?\s*(不正确|正确|错误|成立|不成立)")

# declining to pick an option (said near the end of the response)
DECLINE_RE = re.compile(
    r"无法(?:直接)?(?:确定|判断|得出|给出|选择|作答|回答|判定)|不能确定|难以确定|"
    r"(?:没有|无|不存在)(?:一个|任何)?(?:正确|符合(?:题意|条件|要求)?)的?(?:选项|答案)|"
    r"(?:没有|无)(?:一个|任何)?选项(?:是|为)?(?:正确|符合)|"
    r"(?:不在|没有在|不在于)(?:给出的|所给的|给定的)?选项(?:中|里|之中)|"
    r"选项(?:中|里)(?:没有|不包含|并没有|并不包含)|"
    r"(?:需要|缺少|缺乏|没有)(?:更多|足够)的?(?:信息|数据)|信息不足|"
    r"题目(?:本身)?(?:可能)?(?:存在|有)(?:问题|错误|误)|题目有误|选项有误|"
    r"cannot\s+be\s+determined|none\s+of\s+the\s+(?:options|choices)", re.IGNORECASE)

_OPTION_LINE_RE = re.compile(r"\s*[$*]*\s*[(（]?\s*([A-H])\s*[)）]?\s*[.．、:：]")


def _plain(response: str) -> str:
    return re.sub(r"[${}*]", "", ZERO_WIDTH_RE.sub("", clean_text(response)))


def _tail_lines(response: str, n: int = 3) -> list[str]:
    return [ln for ln in _plain(response).split("\n") if ln.strip()][-n:]


def listed_options(response: str, allowed: set[str]) -> frozenset[str] | None:
    """Options listed one per line right after the final answer marker ("所以最终的答案为:\\n
    A.…\\nB.…", at least two), or None."""
    text = _plain(response)
    marks = list(CHOICE_MARKER_RE.finditer(text))
    if not marks:
        return None
    rest = text[marks[-1].end():].lstrip(" \t:：是为")
    if not rest.startswith("\n"):
        return None
    letters: list[str] = []
    for line in rest.split("\n"):
        if not line.strip():
            continue
        m = _OPTION_LINE_RE.match(line)
        if m is None or m.group(1) not in allowed:
            break
        letters.append(m.group(1))
    return frozenset(letters) if len(letters) >= 2 else None


def _negative(question: str) -> bool:
    return bool(NEGATIVE_QUESTION_RE.search(question)) and \
        not POSITIVE_QUESTION_RE.search(question.replace("不正确", ""))


def judged_options(question: str, response: str,
                   choices: tuple[str, ...]) -> tuple[frozenset[str], ...] | None:
    """The option sets a response that judges every option ("故A正确；…故B错误") without naming
    its choice may have chosen, one per reading of "正确" (None when it judges not every option):
    in a question asking for the correct ones, those it calls correct. In one asking for the
    wrong one ("下列说法错误的是") "D正确" may mean "statement D is true" or "D is the right
    choice": only an option judged unlike all the others (one of them) is chosen, which both
    readings agree on; without such an option both readings stand (those called correct, those
    called wrong). In a question that says neither ("则（ ）"), an option called correct while
    all the others are called wrong is chosen, else both readings stand. Not in a question that
    counts the true statements ("正确的个数是")."""
    if not choices or COUNTING_QUESTION_RE.search(question):
        return None
    positive = bool(POSITIVE_QUESTION_RE.search(question)) and not NEGATIVE_QUESTION_RE.search(question)
    negative = _negative(question)
    if positive and negative:
        return None
    judged: dict[str, bool] = {}
    for m in OPTION_JUDGED_RE.finditer(_plain(response)):
        for letter in re.findall(r"[A-H]", m.group(1)):
            if letter in choices:
                judged[letter] = m.group(2) == "正确"
    if set(judged) != set(choices):
        return None
    true = frozenset(k for k, v in judged.items() if v)
    false = frozenset(k for k, v in judged.items() if not v)
    if positive:
        return (true,) if true else None
    if negative:
        odd = [k for k, v in judged.items() if list(judged.values()).count(v) == 1]
        if len(odd) == 1 and len(judged) > 2:
            return (frozenset(odd),)
    elif len(true) == 1 and len(judged) > 2:
        return (true,)
    return tuple(r for r in (true, false) if r) or None


def all_options(question: str, response: str, choices: tuple[str, ...]) -> frozenset[str] | None:
    """The options chosen by a claim about all of them in the response's last lines: "all are
    true" chooses them all in a question asking for the true ones, "all are false" in one asking
    for the false ones; the empty set when the claim picks none (e.g. "all are true" asked
    for the false one); None without such a claim."""
    if not choices or COUNTING_QUESTION_RE.search(question):
        return None
    claims = [m.group(1) for ln in _tail_lines(response) for m in ALL_OPTIONS_RE.finditer(ln)]
    if not claims:
        return None
    true = claims[-1] in ("正确", "成立")
    return frozenset(choices) if true != _negative(question) else frozenset()


def declines(response: str) -> bool:
    """The response's last lines decline to pick an option ("答案: 无法确定", "没有一个选项是
    正确的", "可能需要更多信息")."""
    return any(DECLINE_RE.search(ln) for ln in _tail_lines(response))


def _letter_patterns(letter: str) -> re.Pattern:
    a = rf"(?<![A-Za-z]){letter}(?![A-Za-z])"
    return re.compile(rf"选项\s*{a}|{a}\s*(?:选项|项)|选\s*{a}|[(（]\s*{letter}\s*[)）]|"
                      rf"(?:^|\n)\s*{letter}\s*(?:[.．、:：]|$)|{a}\s*[.．、:：]|"
                      rf"{a}\s*(?:是|也是)?\s*(?:正确|错误|不正确|对|错|成立|不成立)|"
                      rf"(?:是|为)\s*{a}\s*(?:[。．.，,;；)）]|$)|"
                      rf"答案\S{{0,4}}{a}|answer\S{{0,8}}{a}|option\s*{a}", re.IGNORECASE | re.MULTILINE)


def names_letter(response: str, letter: str) -> bool:
    """Whether the response mentions option `letter` as an option anywhere (选项B, B项, 选B,
    (B), "B." / "B:" at a line start or after a word, B正确, 答案是B, 应该是B。), or writes the
    letter on its own in its last two lines; a point named B elsewhere ("点B", "AB") does not
    count."""
    if _letter_patterns(letter).search(_plain(response)):
        return True
    return any(re.search(rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])", ln)
               for ln in _tail_lines(response, 2))


def _bigrams(text: str) -> set[str]:
    cjk = re.findall(r"[\u3400-\u9fff]+", text)
    return {w[i:i + 2] for w in cjk for i in range(len(w) - 1)}


def words_absent(option: str, response: str) -> bool | None:
    """For an option stated in words (at least four Chinese characters): True when the response
    shares less than a third of its character pairs (it never states that option, even in
    other words), False when it shares more; None for an option too short to tell."""
    wanted = _bigrams(re.sub(r"\$[^$]*\$", " ", option))
    if len(wanted) < 3:
        return None
    shared = len(wanted & _bigrams(response)) / len(wanted)
    return shared < 1 / 3


_SHAPES = (("\\leqslant", "\\le"), ("\\geqslant", "\\ge"), ("\\leq", "\\le"),
           ("\\geq", "\\ge"), ("≤", "\\le"), ("≥", "\\ge"), ("＜", "<"), ("＞", ">"),
           ("，", ","), ("、", ","), ("；", ";"), ("（", "("), ("）", ")"), ("＝", "="),
           ("\\cdot", "·"), ("\\times", "×"))


def _shape(text: str) -> str:
    """A text as written, for comparing spellings: no wrappers, dollars, braces or spaces, one
    spelling of the relations and separators."""
    s = strip_wrappers(text)
    for a, b in _SHAPES:
        s = s.replace(a, b)
    return canonical(s).rstrip(".。．,;:")


# what may come before an option's text where a statement ends with it ("所以i<5", "=4a-8b")
_BOUNDARY_RE = re.compile(r"[\\A-Za-z0-9.^_+\-]$")


def option_ending(question: str, response: str, choices: tuple[str, ...]) -> frozenset[str] | None:
    """The option whose text (at least three characters as written, so not a bare number) the
    response's last line ends with ("所以$$i<{}5$$．" for "C.$$i<{}5$$", "所以顺序是2，4，3，1"),
    the longest if several do; None if none does. (Not an earlier concluding statement: one
    option's content concluded on the way, "所以a+b+c=2", before "综上：C错".)"""
    texts = {k: _shape(v) for k, v in option_texts(question, choices).items()}
    lines = [ln for ln in clean_text(response).split("\n") if ln.strip()]
    if not lines or not texts:
        return None
    last = _shape(lines[-1])
    hits = [k for k, t in texts.items() if len(t) >= 3 and last.endswith(t)
            and not _BOUNDARY_RE.search(last[:len(last) - len(t)])]
    if not hits:
        return None
    best: str = max(hits, key=lambda k: len(texts[k]))
    return frozenset({best})


CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
# "∴③正确", "④错误", "②的说法不正确"
STATEMENT_JUDGED_RE = re.compile(r"([①-⑩])\s*(?:的)?\s*(?:说法|结论|命题|判断)?\s*(?:是)?\s*"
                                 r"(不正确|正确|错误|不成立|成立)")
_OPTION_SET_RE = re.compile(r"^[\s$①-⑩、,，;；和与及]+$")


def judged_statements(question: str, response: str, choices: tuple[str, ...]) -> frozenset[str] | None:
    """The option a response chooses by judging the question's numbered statements one by one
    ("∴②错误 … ∴③正确 … ∴④正确"): the option that lists exactly the statements it calls true
    (in a question asking for the true ones; the false ones where it asks for those), or that
    counts them ("正确的个数是", "正确的有几个": the option whose number is their count). None
    unless every statement of the question is judged and the question asks for one kind."""
    statements = set(ch for ch in question if ch in CIRCLED)
    if not choices or len(statements) < 2:
        return None
    judged: dict[str, bool] = {}
    for m in STATEMENT_JUDGED_RE.finditer(_plain(response)):
        judged[m.group(1)] = m.group(2) in ("正确", "成立")
    asks_false = bool(re.search(r"不正确|错误|不成立|假命题", question))
    asks_true = bool(re.search(r"正确|成立|真命题", re.sub(r"不正确|不成立", "", question)))
    if not statements <= set(judged) or asks_false == asks_true:
        return None
    want = frozenset(k for k in statements if judged[k] == asks_true)
    texts = option_texts(question, choices)
    if COUNTING_QUESTION_RE.search(question):
        counts = {k: re.fullmatch(r"[\s$]*(\d+)[\s$]*个?\s*", t) for k, t in texts.items()}
        hits = [k for k, m in counts.items() if m and int(m.group(1)) == len(want)]
    else:
        hits = [k for k, t in texts.items() if _OPTION_SET_RE.match(t)
                and frozenset(ch for ch in t if ch in CIRCLED) == want]
    return frozenset(hits) if len(hits) == 1 else None
