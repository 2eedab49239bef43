"""CMMaTH adapter (Li et al. 2024): dataset, knowledge points, prompts and the rule grader.

Everything this project knows about CMMaTH's files lives here; the GradeGPT-style judge's prompt
and verdict parser live in `tasks/cmmath_judge.py`, the metrics in `sql/40_cmmath_views.sql`.

Settings are "<mode>" or "<mode>/<prompt>": the input mode (`text`: the question only, the
paper's "LLMs (Text Only)"; `text+ocr`: the question plus the record's OCR text, "Text + OCR
Caption"; `image`: the question with its image) and the prompt (`step`: step-by-step with
`<STEPn>` marks, the default; `en-cot`: English chain of thought; `clp`: Cross-Lingual
Prompting). The grader here is the rule stage of the grading cascade: it decides what it can
decide by rules (option sets, math equivalence) and leaves the rest undecided (correct=None) for
the judge.
"""
from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tasks.errors import DataError
from tasks.files import read_json, read_records
from tasks.items import Item

NAME = "cmmath"
MODES = ("text", "text+ocr", "image")
PROMPTS = ("step", "en-cot", "clp")
DEFAULT_PROMPT = "step"
SETTINGS = MODES + tuple(f"{m}/{p}" for m in MODES for p in PROMPTS)
DEFAULT_SETTING = "text"
DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 2048}
GRADERS = ("rules",)

# Bumped whenever parsing changes what `load` produces, so stored items and reference tables
# are reloaded (it is part of the dataset fingerprint).
PARSER_VERSION = "1"

ANSWER_TYPES = ("choice", "free_form")
GRADE_GROUPS = {1: "elementary", 2: "junior", 3: "senior"}
LETTERS = "ABCDEFGH"
# An option label at the start of a line or after white space: "A.", "B．", "C、", "D)".
OPTION_RE = re.compile(r"(?:^|(?<=\s))(?:\$\$)?([A-H])(?:\$\$)?\s*[.．、:：)）]")
NO_ANSWER = ("暂无", "无", "略")   # "not available": the record carries no reference answer


@dataclass(frozen=True)
class CmmathItem(Item):
    """An Item plus where its image files were looked for (`<data_dir>/cmmath/images/<file>`).

    `image_path` stays None: which image a request carries depends on the setting
    (`request_image`), and the text modes must never carry one.
    """
    image_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dataset:
    items: tuple[CmmathItem, ...]
    points: tuple[tuple[str, str, str, str], ...]   # (item_id, point, path, source)
    fingerprint: str = ""
    data_dir: str = ""

    def by_id(self) -> dict[str, CmmathItem]:
        return {i.item_id: i for i in self.items}


# -- knowledge points ---------------------------------------------------------------------------
#
# `knowledge_point` is a nested path such as
#     立体几何初步(基本立体图形(三视图(三视图与几何体转化问题,利用三视图求体积)))
# The structure is written with ASCII brackets and commas only: across the published sample
# (3234 bracket pairs, 960 commas) every full-width bracket （…） (24 pairs), full-width comma
# ， (3) and enumeration comma 、 (651) sits *inside* a point's name, as a qualifier or a list
# that names one point: 古典概型的概率计算（不涉及计数原理）, 众数、中位数、平均数,
# 作三角形的高，中线和角平分线. So those are kept as part of the name (they must balance within
# it), and the leaves of the ASCII structure are the question's knowledge points.

class PointSyntaxError(ValueError):
    pass


def _check_name(name: str, text: str) -> str:
    name = name.strip()
    if not name:
        raise PointSyntaxError(f"empty knowledge point name in {text!r}")
    depth = 0
    for ch in name:
        depth += {"（": 1, "）": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise PointSyntaxError(f"unbalanced full-width brackets in {name!r} (in {text!r})")
    return name


def parse_points(text: str) -> list[tuple[str, str]]:
    """Leaf knowledge points of a nested path text, as (leaf, path) in order, without repeats.

    `A(B(C,D),E)` -> [("C", "A > B > C"), ("D", "A > B > D"), ("E", "A > E")]. Raises
    PointSyntaxError on unbalanced brackets, empty names or text after a closing bracket.
    """
    text = unicodedata.normalize("NFC", text or "").strip()
    if not text:
        return []
    pos = 0
    leaves: list[tuple[str, str]] = []

    def node_list(ancestors: list[str]) -> None:
        nonlocal pos
        while True:
            start = pos
            while pos < len(text) and text[pos] not in "(),":
                pos += 1
            name = _check_name(text[start:pos], text)
            if pos < len(text) and text[pos] == "(":
                pos += 1
                node_list([*ancestors, name])
                if pos >= len(text) or text[pos] != ")":
                    raise PointSyntaxError(f"missing ')' in {text!r}")
                pos += 1
                if pos < len(text) and text[pos] not in "),":
                    raise PointSyntaxError(f"text after ')' at position {pos} in {text!r}")
            else:
                leaves.append((name, " > ".join([*ancestors, name])))
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            return

    node_list([])
    if pos != len(text):
        raise PointSyntaxError(f"unbalanced ')' at position {pos} in {text!r}")
    seen: dict[str, str] = {}
    for leaf, path in leaves:
        seen.setdefault(leaf, path)
    return list(seen.items())


def item_points(record: dict[str, Any]) -> tuple[list[tuple[str, str]], str | None]:
    """(leaves, source field): `knowledge_point`, or `skill` when that is empty."""
    for f in ("knowledge_point", "skill"):
        value = record.get(f)
        if isinstance(value, str) and value.strip():
            return parse_points(value), f
    return [], None


# -- options -------------------------------------------------------------------------------------

def option_letters(question: str) -> tuple[str, ...]:
    """Option letters of a choice question ('...\\nA.42.5分钟\\nB.45.5分钟...' -> ('A', 'B', ...)).

    Letters must come in alphabetical sequence, so a point named 'D.' inside the text is not
    taken for an option.
    """
    seen: list[str] = []
    for letter in OPTION_RE.findall(question or ""):
        if len(seen) < len(LETTERS) and letter == LETTERS[len(seen)]:
            seen.append(letter)
    return tuple(seen) if len(seen) >= 2 else ()


def option_texts(question: str, letters: tuple[str, ...]) -> dict[str, str]:
    """letter -> the option's text (up to the next option or the end of the question)."""
    spans: list[tuple[str, int, int]] = []
    want = list(letters)
    for m in OPTION_RE.finditer(question or ""):
        if want and m.group(1) == want[0]:
            spans.append((want.pop(0), m.start(), m.end()))
    out = {}
    for k, (letter, _, end) in enumerate(spans):
        stop = spans[k + 1][1] if k + 1 < len(spans) else len(question)
        out[letter] = question[end:stop].strip()
    return out


def gold_letters(answer: str) -> frozenset[str] | None:
    """The reference option set of a choice answer ('C\\n', 'A\\nC\\n', 'A, C'), or None."""
    body = re.sub(r"[\s,，、;；]", "", answer or "")
    if body and len(body) <= len(LETTERS) and all(ch in LETTERS for ch in body):
        return frozenset(body)
    return None


# -- loading -------------------------------------------------------------------------------------

def _grade_group_of(grade_id: int) -> int:
    return 1 if grade_id <= 6 else 2 if grade_id <= 9 else 3


def parse_record(row: Any, *, path: Path, n: int, data_dir: Path) -> tuple[CmmathItem, list]:
    """One cmmath.json record -> (item, [(point, path, source)]), or a DataError naming the
    file, the row and the field."""
    if not isinstance(row, dict):
        raise DataError(path, "expected a JSON object", row=n)
    pid = row.get("problem_id")
    if not isinstance(pid, str) or not pid.strip():
        raise DataError(path, "missing or not a non-empty string", row=n, field="problem_id")

    def bad(field: str, message: str) -> DataError:
        return DataError(path, message, row=n, field=field, item=pid)

    for f in ("question", "answer"):
        if not isinstance(row.get(f), str) or not row[f].strip():
            raise bad(f, "missing or not a non-empty string")
    if row.get("answer_type") not in ANSWER_TYPES:
        raise bad("answer_type", f"expected one of {ANSWER_TYPES}, got {row.get('answer_type')!r}")
    grade_id, group = row.get("grade_id"), row.get("grade_group")
    if not isinstance(grade_id, int) or isinstance(grade_id, bool) or not 1 <= grade_id <= 12:
        raise bad("grade_id", f"expected an integer 1..12, got {grade_id!r}")
    if group not in GRADE_GROUPS or isinstance(group, bool):
        raise bad("grade_group", f"expected 1, 2 or 3, got {group!r}")
    if group != _grade_group_of(grade_id):
        raise bad("grade_group", f"grade_group {group} does not match grade_id {grade_id} "
                  "(1-6 elementary = 1, 7-9 junior = 2, 10-12 senior = 3)")
    meta = row.get("metadata")
    if not isinstance(meta, dict):
        raise bad("metadata", "missing or not a JSON object")
    category = meta.get("multimodal-category")
    if not isinstance(category, str) or not category.strip():
        raise DataError(path, "missing or not a non-empty string", row=n,
                        field="metadata.multimodal-category", item=pid)
    for f in ("knowledge_point", "skill", "ocr"):
        if row.get(f) is not None and not isinstance(row[f], str):
            raise bad(f, f"expected a string or null, got {type(row[f]).__name__}")
    images = row.get("image", [])
    if images is None:
        images = []
    if not isinstance(images, list) or not all(isinstance(i, str) and i for i in images):
        raise bad("image", "expected a list of file names")
    try:
        points, source = item_points(row)
    except PointSyntaxError as exc:
        field = "knowledge_point" if (row.get("knowledge_point") or "").strip() else "skill"
        raise bad(field, str(exc)) from None
    choices = option_letters(row["question"]) if row["answer_type"] == "choice" else ()
    image_dir = Path(data_dir) / NAME / "images"
    item = CmmathItem(
        benchmark=NAME, item_id=pid, question=row["question"], gold=row["answer"].strip(),
        group_id=str(group), part=row["answer_type"],
        concept=row.get("knowledge_point") or row.get("skill"), choices=choices,
        image_path=None, payload=row,
        image_files=tuple(str(image_dir / i) for i in images),
    )
    return item, [(leaf, p, source) for leaf, p in points]


@lru_cache(maxsize=4)
def load(data_dir: str | Path) -> Dataset:
    data_dir = Path(data_dir)
    path = data_dir / NAME / "cmmath.json"
    rows = read_json(path)
    if isinstance(rows, dict):
        rows = rows.get("data", rows)
    if not isinstance(rows, list):
        raise DataError(path, "expected a JSON array of records")
    fingerprint = hashlib.sha256(path.read_bytes() + str(data_dir).encode()
                                 + PARSER_VERSION.encode()).hexdigest()
    items: list[CmmathItem] = []
    points: list[tuple[str, str, str, str]] = []
    first_row: dict[str, int] = {}
    for n, row in enumerate(rows, start=1):
        item, pts = parse_record(row, path=path, n=n, data_dir=data_dir)
        if item.item_id in first_row:
            raise DataError(path, f"problem_id also used by row {first_row[item.item_id]}",
                            row=n, field="problem_id", item=item.item_id)
        first_row[item.item_id] = n
        items.append(item)
        points += [(item.item_id, leaf, p, source) for leaf, p, source in pts]
    return Dataset(items=tuple(items), points=tuple(points), fingerprint=fingerprint,
                   data_dir=str(data_dir))


def select(items: tuple[Item, ...], limit: int | None) -> list[Item]:
    """The first `limit` questions in file order."""
    return list(items) if limit is None else list(items)[:limit]


def reference_tables(dataset: Dataset) -> dict[str, dict[str, tuple[str, list]]]:
    """Tables the views join against: per-question labels and the question -> leaf points map."""
    its = dataset.items
    return {
        "cmmath_items": {
            "item_id": ("VARCHAR", [i.item_id for i in its]),
            "answer_type": ("VARCHAR", [i.payload["answer_type"] for i in its]),
            "grade_id": ("INTEGER", [i.payload["grade_id"] for i in its]),
            "grade_group": ("INTEGER", [i.payload["grade_group"] for i in its]),
            "category": ("VARCHAR", [i.payload["metadata"]["multimodal-category"] for i in its]),
        },
        "cmmath_item_points": {
            "item_id": ("VARCHAR", [p[0] for p in dataset.points]),
            "point": ("VARCHAR", [p[1] for p in dataset.points]),
            "path": ("VARCHAR", [p[2] for p in dataset.points]),
            "source": ("VARCHAR", [p[3] for p in dataset.points]),
        },
    }


# -- prompts ---------------------------------------------------------------------------------------

def parse_setting(setting: str) -> tuple[str, str]:
    """'text' -> ('text', 'step'); 'image/clp' -> ('image', 'clp')."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown CMMaTH setting {setting!r}; choose from {', '.join(SETTINGS)}")
    mode, _, prompt = setting.partition("/")
    return mode, prompt or DEFAULT_PROMPT


# Our wording of the paper's three prompt styles (the paper gives their shape, not a fixed text).
STEP_PROMPT = (
    "请一步一步地解答下面的数学题。每一步都以<STEP1>、<STEP2>、<STEP3>……开头标出，"
    "最后单独一行写出最终答案，格式为“答案：……”（选择题只写选项字母）。\n\n"
    "题目：{question}{context}"
)
EN_COT_PROMPT = (
    "Solve the following math problem (written in Chinese). Think step by step in English, "
    "then give the final answer on the last line in the form \"Answer: ...\" (for a "
    "multiple-choice question, give only the option letter(s)).\n\n"
    "Question: {question}{context}"
)
CLP_PROMPT = (
    "Please act as an expert in multilingual understanding in Chinese.\n"
    "Request: {question}{context}\n\n"
    "First, let's understand the request in English step by step: restate in English what is "
    "given and what is asked. After understanding, act as an expert in mathematical reasoning "
    "in English and solve the task you understood step by step. Finally, give your answer on "
    "the last line in the form \"Answer: ...\" (for a multiple-choice question, only the "
    "option letter(s))."
)
PROMPT_TEMPLATES = {"step": STEP_PROMPT, "en-cot": EN_COT_PROMPT, "clp": CLP_PROMPT}
OCR_INTRO = {"step": "\n\n图中的文字（OCR识别结果）：{ocr}",
             "en-cot": "\n\nText found in the figure (OCR): {ocr}",
             "clp": "\nText found in the figure (OCR): {ocr}"}
NO_OCR = {"step": "（未识别到文字）", "en-cot": "(none)", "clp": "(none)"}


def image_files(item: Item) -> list[Path]:
    """Where the question's images are looked for: `<data_dir>/cmmath/images/<file>`."""
    return [Path(p) for p in getattr(item, "image_files", ())]


def build_prompt(item: Item, setting: str = DEFAULT_SETTING) -> str:
    mode, prompt = parse_setting(setting)
    context = ""
    if mode == "text+ocr":
        ocr = (item.payload.get("ocr") or "").strip().lstrip(",，").strip()
        context = OCR_INTRO[prompt].format(ocr=ocr or NO_OCR[prompt])
    elif mode == "image":
        files = image_files(item)
        missing = [p for p in files if not p.is_file()]
        if not files or missing:
            where = missing[0].parent if missing else "<data_dir>/cmmath/images"
            raise DataError(
                where, f"setting {setting!r} needs the question's image file(s), not found: "
                f"{', '.join(map(str, missing)) or '(the record names no image)'}. The published "
                "CMMaTH sample ships without its images: put them in <data_dir>/cmmath/images/ "
                "(e.g. from github zzli2022/CMMaTH, images/) or use the 'text' or 'text+ocr' "
                "modes.", item=item.item_id, field="image")
    return PROMPT_TEMPLATES[prompt].format(question=item.question.strip(), context=context)


def request_image(item: Item, setting: str) -> str | None:
    """The image sent with the request: the question's (first) image in the `image` mode only;
    the text modes never carry one. build_prompt has checked that it exists."""
    mode, _ = parse_setting(setting)
    files = image_files(item)
    return str(files[0]) if mode == "image" and files else None


# -- the rule grader -------------------------------------------------------------------------------
#
# Decides only what rules can decide, and returns correct=None otherwise:
#   choice questions: the set of option letters in the final answer must equal the reference
#     set ("A, C" against "C" is wrong);
#   free-form: the final answer's value(s) against the reference's value(s), by math
#     equivalence (math-verify over sympy: numbers, fractions, radicals, pi, intervals, sets,
#     equations) after dropping units and degree signs.
# Undecided: no final answer found, a reference or an answer the parser cannot read (text
# answers, geometric relations it cannot compare), several candidate answers that disagree,
# a reference marked "answer not unique" that the answer does not match, no reference ("暂无").

CJK_RE = re.compile(r"[\u3400-\u9fff]")
ZERO_WIDTH_RE = re.compile(r"[\u200b-\u200f\u2060\ufeff]")

_MARKERS = [  # final-answer markers, most explicit first (the last occurrence in the text wins)
    r"final\s+answer\s*(?:is)?\s*[:：]?",
    r"the\s+(?:correct\s+)?answer\s+is\s*[:：]?",
    r"\banswer\s*[:：]",
    r"(?:最终|正确)?答案\s*(?:应该是|应为|是|为|[:：])?",
    r"故选\s*[:：]?", r"应选\s*[:：]?", r"所以选\s*[:：]?", r"因此选\s*[:：]?", r"选择?\s*[:：]",
]
MARKER_RE = re.compile("|".join(f"(?:{m})" for m in _MARKERS), re.IGNORECASE)
CONCLUSION_RE = re.compile(r"(?:所以|因此|综上所述|综上|故|从而|即|∴|\\therefore\b|"
                           r"(?<![\\A-Za-z])(?:therefore|thus|hence|so)\b)", re.IGNORECASE)
RELATION_RE = re.compile(r"约等于|等于|约为|应为|(?<![因作成认称以])为|(?<![于但还只总可若要凡])是(?!否)|≈|=|＝|"
                         r"\b(?:is|are|equals?(?:\s+to)?)\b")
CHOICE_MARKER_RE = re.compile(        # strong: they introduce the answer
    r"(?:故选|应选|所以选|因此选|选择|正确选项(?:是|为)?|答案(?:是|为|应为)?|"
    r"final\s+answer(?:\s+is)?|correct\s+(?:answer|option)s?(?:\s+(?:is|are))?|"
    r"answer(?:\s+is)?|\\boxed\{)", re.IGNORECASE)
WEAK_CHOICE_MARKER_RE = re.compile(r"选项|options?(?:\s+(?:is|are))?", re.IGNORECASE)
CHOICE_GROUP_RE = re.compile(
    r"^[\s:：是为\"“「(（\[{$*]*(?:选项|选|option\s*|options\s*)?[\s$*(（]*"
    r"((?:[A-H](?:\s*(?:[,，、/&和与及]|and)?\s*)?)+)")

UNITS = sorted([
    "平方厘米", "平方分米", "平方千米", "平方毫米", "平方米", "平方单位", "立方厘米", "立方分米",
    "立方米", "立方单位", "厘米", "毫米", "分米", "千米", "公里", "米", "英尺", "度", "元", "分钟",
    "小时", "秒", "天", "人", "个", "名", "本", "块", "次", "步", "尺", "千克", "克", "吨",
    "毫升", "升", "倍", "条", "只", "根", "张", "页", "辆", "棵", "件", "种", "岁", "周", "年",
    "分", "单位", "处", "枚", "盒", "箱", "瓶", "支",
], key=len, reverse=True)
UNIT_RE = re.compile("(?:" + "|".join(UNITS) + r")$")
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
NOT_UNIQUE_RE = re.compile(r"[（(]?\s*(?:答案不唯一|填一个即可|写出一个即可|只需填一个|"
                           r"写一个即可|任写一个)\s*[)）]?")


def _math_timeout() -> int | None:
    """math-verify's timeouts use SIGALRM, which only the main thread may set."""
    return 5 if threading.current_thread() is threading.main_thread() else None


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


def _in_math(text: str, pos: int) -> bool:
    """Whether `pos` lies inside $...$ / $$...$$."""
    return len(re.findall(r"\$+", text[:pos])) % 2 == 1


def _split(text: str, stops: str) -> list[str]:
    cuts = _outside(text, stops)
    parts, last = [], 0
    for c in cuts:
        parts.append(text[last:c])
        last = c + 1
    parts.append(text[last:])
    return [p.strip() for p in parts if p.strip()]


def _split_words(text: str, pattern: str) -> list[str]:
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


def _last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    i, depth = start + len("\\boxed{"), 1
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j]
    return None


def _sentence_after(text: str, start: int) -> str:
    """From `start` to the end of its line."""
    end = text.find("\n", start)
    return text[start:end if end >= 0 else len(text)]


NUMBER_RE = re.compile(r"(?<![A-Za-z\d.^_])-?\d+(?:\.\d+)?(?![\d.]*[A-Za-z])")
CANNOT_RE = re.compile(
    r"无法(?:直接)?(?:得出|求解|求出|计算|确定|给出|判断|回答|解答|得到)|没有(?:正确|确定的?)?答案|"
    r"题目没有答案|方程组?没有解|不能确定|cannot\s+(?:be\s+)?(?:determined?|solved?|calculated?|"
    r"found|answered?)|unable\s+to|no\s+(?:definite\s+)?answer", re.IGNORECASE)
BLANK_RE = re.compile(r"\\underline\s*\{\s*\}|_{3,}|（\s*）|\(\s*\)")


def _clean_text(response: str) -> str:
    text = ZERO_WIDTH_RE.sub("", response).replace("\r", "")
    return re.sub(r"<STEP\s*\d+>|###\s*Step\s*\d+\s*[:：]?", "\n", text, flags=re.IGNORECASE)


def final_region(response: str) -> tuple[str | None, str]:
    """The part of a response that states its final answer, and how it was found:
    'boxed' (the last \\boxed{}); else whichever of these comes last in the text:
    'marker' (the line after 答案：/ Answer: / 故选), 'conclusion' (the last 所以/因此 ... line
    stating a value), 'number' (such a line with no relation word but exactly one number),
    'blank' (a marked answer left blank: 答案为\\underline{}), 'no_answer' (the response says it
    cannot find the answer: 无法求解, 题目没有答案); else 'last_line' (a short last line stating
    a value); else (None, 'none')."""
    text = _clean_text(response)
    boxed = _last_boxed(text)
    if boxed is not None and boxed.strip():
        return boxed.strip(), "boxed"
    found: list[tuple[int, str, str]] = []          # (position, region, how)
    for m in reversed(list(MARKER_RE.finditer(text))):
        rest = _sentence_after(text, m.end())
        if not rest.strip(" \t:："):                 # "答案为：" with the answer on the next line
            following = text[m.end():].split("\n")[1:]
            rest = next((ln for ln in following if ln.strip()), "")
        if _strip_wrappers(rest):
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
        m = None
        for m in CONCLUSION_RE.finditer(ln):
            pass
        if m is not None:
            region = ln[m.start():].strip()
            if _in_math(ln, m.start()):           # "$$\\therefore x=5$$": keep the $$ balanced
                region = "$$" + region
            if RELATION_RE.search(region):
                found.append((pos + m.start(), region, "conclusion"))
                break
            if len(NUMBER_RE.findall(_strip_wrappers(region))) == 1:
                found.append((pos + m.start(), region, "number"))
                break
    for pos, ln in reversed(lines[-2:]):
        m = None
        for m in CANNOT_RE.finditer(ln):
            pass
        if m is not None:
            found.append((pos + m.start(), "", "no_answer"))
            break
    if found:
        pos, region, how = max(found, key=lambda f: f[0])
        if how in ("marker", "conclusion"):
            start = text.find(region.lstrip("$"), pos)
            following = [ln.strip() for ln in text[start + len(region.lstrip("$")):].split("\n")[1:]
                         if ln.strip()]
            if re.search(r"(?:为|是|=|[:：])\s*$", _strip_wrappers(region) + (
                    ":" if region.rstrip().endswith(("：", ":")) else "")) and following:
                region = f"{region} {following.pop(0)}"   # "所以，面积为：" + the next line
            while following and re.match(r"\$*\s*=", following[0]):
                region = f"{region} {following.pop(0)}"   # "V = 1/3 × ..." + "= 4/3 cm³"
        return region, how
    if lines and RELATION_RE.search(lines[-1][1]) and len(lines[-1][1]) <= 120:
        return lines[-1][1].strip(), "last_line"
    return None, "none"


def _strip_wrappers(s: str) -> str:
    s = ZERO_WIDTH_RE.sub("", s)
    s = s.replace("$", " ").replace("\\*", "*").replace("\\_", "_")
    s = re.sub(r"\\(?:underline|boxed|text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\(?:displaystyle|limits|!|,|;|quad|qquad)", " ", s)
    s = s.replace("\\left", "").replace("\\right", "").replace("\\dfrac", "\\frac")
    s = s.replace("\\tfrac", "\\frac").replace("{ }", "")
    s = s.strip().strip("。．.，,;；:：!！?？ ")
    s = re.sub(r"^[“\"'「（(]\s*(?=[^)）]*$)", "", s)
    return s.strip()


@dataclass(frozen=True)
class Value:
    text: str            # normalised text, as compared
    degrees: bool        # carried a degree sign
    parsed: Any = None   # math-verify's parse, or None when it could not parse
    kind: str = "math"   # math | text | relation_geo | circled | equation
    bare_number: str | None = None   # "4" of "4m": the number, if the letter is a unit


def _normalise_value(raw: str) -> tuple[str, bool]:
    s = _strip_wrappers(raw)
    s = s.replace("（", "(").replace("）", ")").replace("，", ",").replace("：", ":")
    s = s.replace("＝", "=").replace("≤", "\\le ").replace("≥", "\\ge ").replace("≠", "\\ne ")
    s = s.replace("\\leqslant", "\\le").replace("\\geqslant", "\\ge").replace("\\colon", ":")
    s = re.sub(r"\{\s*(arc(?:sin|cos|tan))\s*\}", r"\\\1", s)
    s = re.sub(r"(?<!\\)\barc(sin|cos|tan)", r"\\arc\1", s)
    degrees = bool(DEGREE_RE.search(s))
    s = DEGREE_RE.sub("", s).strip()
    for _ in range(3):                   # "8平方厘米", "5{cm}", "3\\mathrm{cm}^{2}", "10人"
        before = s
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
    s = s.replace("{+}", "+").replace("{-}", "-").replace("{}", "").replace("﹣", "-")
    s = re.sub(r"根号\s*(\d+(?:\.\d+)?|\{[^{}]*\})", lambda m: "\\sqrt{" + m.group(1).strip("{}") + "}", s)
    s = s.replace("π", "\\pi ").replace("×", "\\times ").replace("÷", "/").replace("·", "\\cdot ")
    s = s.replace("²", "^2").replace("³", "^3").replace("∞", "\\infty ").replace("−", "-")
    s = re.sub(r"√\s*\(([^()]*)\)", r"\\sqrt{\1}", s)
    s = re.sub(r"√\s*\{([^{}]*)\}", r"\\sqrt{\1}", s)
    s = re.sub(r"√\s*([0-9.]+|[a-zA-Z])", r"\\sqrt{\1}", s)
    s = re.sub(r"(\d)\s*%|\\%", lambda m: (m.group(1) or "") + "/100", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s, degrees


@lru_cache(maxsize=1)
def _latex_config() -> list:
    from latex2sympy2_extended.latex2sympy2 import NormalizationConfig
    from math_verify import LatexExtractionConfig

    # units=False: math-verify would drop letters it takes for units ("4m" -> 4, "2h" -> 2);
    # units are dropped here, before parsing, where it is safe.
    return [LatexExtractionConfig(boxed_match_priority=0, normalization_config=NormalizationConfig(
        basic_latex=True, units=False, malformed_operators=True, nits=True, boxed="all",
        equations=False))]


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


def _same(a: Value, b: Value) -> bool | None:
    """Equivalent (True), different (False), or not comparable by rules (None)."""
    kinds = {a.kind, b.kind}
    if "equation" in kinds:
        return None
    if "circled" in kinds:
        return (a.text == b.text) if kinds == {"circled"} else None
    if kinds & {"text", "relation_geo"}:
        return True if _canon(a.text) == _canon(b.text) else None
    if a.parsed is None or b.parsed is None:
        return None
    if a.degrees != b.degrees and ("\\pi" in a.text or "\\pi" in b.text):
        return None       # degrees against radians
    from math_verify import verify
    try:
        return bool(verify(a.parsed, b.parsed, timeout_seconds=_math_timeout()))
    except Exception:   # noqa: BLE001
        return None


def _canon(s: str) -> str:
    return re.sub(r"[\s{}$]", "", s)


GEO_NAME_RE = re.compile(r"(?<![\\a-zA-Z])[A-Z]{2,}|\\angle|∠|\\triangle|△|∥|//|\\parallel|⊥|\\perp")


CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
MATH_WORDS_RE = re.compile(r"\\[A-Za-z]+|\b(?:sin|cos|tan|cot|sec|csc|log|ln|lg|exp|arcsin|arccos|"
                           r"arctan|sqrt|max|min|lim|mod)\b")


def _has_words(s: str) -> bool:
    """English words ("6 square units", "the area"): text, not a product of letters."""
    return bool(re.search(r"[A-Za-z]{3,}", MATH_WORDS_RE.sub(" ", s)))


def make_value(raw: str) -> Value:
    s, degrees = _normalise_value(raw)
    if not s:
        return Value("", degrees, None, "text")
    bare = re.sub(r"[\s{},、和与及]", "", s)
    if bare and all(ch in CIRCLED for ch in bare):
        # statement numbers ("which are true?": ①②④): compared as sets
        return Value("".join(sorted(set(bare), key=CIRCLED.index)), degrees, None, "circled")
    if CJK_RE.search(s) or _has_words(s):
        return Value(s, degrees, None, "text")
    if GEO_NAME_RE.search(s):
        # Segment, angle and figure names (AB, ∠ABC): sympy would read AB as a product, so
        # AB = BA and ABC = CBA; compared as text only.
        return Value(s, degrees, None, "relation_geo")
    unit = BARE_UNIT_RE.fullmatch(s)
    return Value(s, degrees, _parse_math(s), bare_number=unit.group(1) if unit else None)


# "y = 8/x", "E(Y) = 80", "= -2a/3": a reference that names what it gives states its value
# (a name: no digits, no operators; the rest holds no further "=").
SIMPLE_LHS_RE = re.compile(r"^[^=\d+\-*/<>≤≥]*?(?<![<>!])=(?!=)\s*(?=[^=]*$)")
PART_LABEL_RE = re.compile(r"^\s*[(（]\s*\d+\s*[)）]\s*")


@dataclass(frozen=True)
class Reference:
    blanks: tuple[tuple[tuple[Value, ...], ...], ...]   # blanks -> solutions -> alternatives
    not_unique: bool = False


def parse_reference(gold: str) -> Reference | None:
    """The reference answer's structure: blanks (one per line), each a set of solutions
    (joined by 或), each with alternative spellings (joined by '/ ' or '##'). None when there
    is no reference ('暂无')."""
    text = ZERO_WIDTH_RE.sub("", gold or "").strip()
    if not text or _strip_wrappers(text) in NO_ANSWER:
        return None
    not_unique = bool(NOT_UNIQUE_RE.search(text))
    text = NOT_UNIQUE_RE.sub("", text)
    blanks = []
    for value in (PART_LABEL_RE.sub("", v) for line in text.split("\n")
                  for v in _split(line, "，,；;")):
        solutions = []
        for sol in _split_words(value, r"或"):
            alts = [SIMPLE_LHS_RE.sub("", a, count=1) for a in re.split(r"##|/\s+(?=\S)", sol)]
            alts = [a for a in alts if _strip_wrappers(a)]
            solutions.append(tuple(make_value(a) for a in alts))
        if solutions:
            blanks.append(tuple(solutions))
    return Reference(tuple(blanks), not_unique) if blanks else None


def _depth0(text: str, pos: int) -> bool:
    """Whether `pos` is outside round/square/curly brackets (dollar signs are ignored)."""
    depth = 0
    for ch in text[:pos]:
        if ch in "([{（【":
            depth += 1
        elif ch in ")]}）】":
            depth = max(0, depth - 1)
    return depth == 0


def _is_equation_side(lhs: str) -> bool:
    bare = re.sub(r"\\[a-zA-Z]+", " ", lhs)
    has_op = bool(re.search(r"[+\-*/^]|\\times|\\cdot|\\frac", lhs))
    has_var = bool(re.search(r"(?<![a-zA-Z])[a-z](?![a-zA-Z])", bare))
    return has_op and has_var


def _candidates(region: str, how: str) -> list[Value]:
    """Stated values of the final-answer region: per clause, the value after its last
    relation word ('所以EF = 6' -> 6, '面积为8平方厘米' -> 8, 'AB = AC + BC = 5' -> 5). In an
    explicitly marked region (boxed, 答案：, Answer:) where no clause has a relation word, the
    clauses themselves are the values; a 'number' region gives its one number."""
    if how == "number":
        return [make_value(n) for n in NUMBER_RE.findall(_strip_wrappers(region))][:1]
    stated: list[Value] = []
    bare: list[Value] = []
    for clause in _split(region, "，,；;。\n"):
        for part in _split_words(PART_LABEL_RE.sub("", clause), r"或|\band\b|和"):
            rels = [m for m in RELATION_RE.finditer(part) if _depth0(part, m.start())]
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
               for a in alts for r in [_same(c, a)]]
    if any(r is True for r in results):
        return True
    if results and all(r is False for r in results):
        return False
    return None


def grade_free_form(reference: Reference, response: str) -> tuple[str | None, bool | None]:
    region, how = final_region(response)
    if how in ("blank", "no_answer"):
        return f"({how})", False            # no definite answer: the judge's rule says No
    if region is None:
        return None, None
    cands = _candidates(region, how)
    if not cands:
        if BLANK_RE.search(region):
            return "(blank)", False          # "面积为\\underline{}": the answer is left blank
        return _strip_wrappers(region)[:200] or None, None
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


def extract_choice(response: str, choices: tuple[str, ...]) -> frozenset[str] | None:
    """The option letters the response's final answer names ('故选：AC', 'Answer: A, C',
    '\\boxed{B}', '答案：B. 45.5分钟'), or None when no marked letter answer is found."""
    text = ZERO_WIDTH_RE.sub("", response).replace("$", "").replace("*", "")
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
            m = re.fullmatch(r"[(（\[]?\s*([A-H](?:\s*[,，、]\s*[A-H])*)\s*[)）\]]?[.。]?", lines[-1])
            if m and set(re.findall(r"[A-H]", m.group(1))) <= allowed:
                found = frozenset(re.findall(r"[A-H]", m.group(1)))
    return found


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
    hits = [letter for letter, t in texts.items() if _same(cands[0], make_value(t)) is True]
    return frozenset(hits) if len(hits) == 1 else None


def grade_rules(item: Item, response: str | None) -> tuple[str | None, bool | None]:
    if response is None or not response.strip():
        return None, False                      # no answer at all: wrong (the judge's "No")
    gold = item.gold
    letters = gold_letters(gold)
    if letters is not None and (item.choices or item.part == "choice"):
        chosen = extract_choice(response, item.choices)
        if chosen is None:
            chosen = _choice_by_value(item, response)
        if chosen is None:
            return None, None
        return "".join(sorted(chosen)), chosen == letters
    reference = parse_reference(gold)
    if reference is None:
        return None, None                       # no reference answer in the record
    return grade_free_form(reference, response)


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool | None]:
    """(extracted answer, correct) under `grader`; correct is None when undecided."""
    if grader != "rules":
        raise ValueError(f"unknown CMMaTH grader {grader!r}; choose from {GRADERS}")
    return grade_rules(item, response)


# -- results in the authors' format --------------------------------------------------------------

def _norm_text(s: str) -> str:
    return re.sub(r"\s+", "", ZERO_WIDTH_RE.sub("", unicodedata.normalize("NFC", s)))


def read_official_results(path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
    """The authors' result format: cmmath.json records plus the model's answer in `response`
    (or `model_response`, as in the authors' README), as a JSON array or JSONL.

    Rows are matched to the dataset by problem_id; an unknown or repeated problem_id, or a
    question text that differs from cmmath.json, is an error naming the row.
    """
    path = Path(path)
    known = dataset.by_id()
    out: list[tuple[Item, str | None]] = []
    seen: dict[str, int] = {}
    for n, row in read_records(path):
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", row=n)
        pid = row.get("problem_id")
        if not isinstance(pid, str) or not pid:
            raise DataError(path, "missing or not a string (problem ids are strings such as "
                            "'00014')", row=n, field="problem_id")
        item = known.get(pid)
        if item is None:
            raise DataError(path, "no such problem in cmmath.json", row=n, field="problem_id",
                            item=pid)
        if pid in seen:
            raise DataError(path, f"problem appears twice (also row {seen[pid]})", row=n,
                            field="problem_id", item=pid)
        seen[pid] = n
        if isinstance(row.get("question"), str) and \
                _norm_text(row["question"]) != _norm_text(item.question):
            raise DataError(path, "question text differs from cmmath.json", row=n,
                            field="question", item=pid)
        field = "response" if "response" in row else "model_response"
        response = row.get(field)
        if response is not None and not isinstance(response, str):
            raise DataError(path, f"expected a string, got {type(response).__name__}", row=n,
                            field=field, item=pid)
        out.append((item, response))
    return out


# -- the judge stage (wired by tasks/judging.py) ----------------------------------------------

JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 1024}


def judge_prompt(item: Item, response: str | None) -> tuple[str, str]:
    """(system, user) prompt asking a GradeGPT-style judge whether `response` answers `item`."""
    from tasks.cmmath_judge import judge_prompt as prompt

    return prompt(item.payload.get("question", item.question),
                  str(item.payload.get("answer", item.gold)), response)


def parse_judgment(text: str | None) -> bool | None:
    from tasks.cmmath_judge import parse_verdict

    return parse_verdict(text)
