"""CMMaTH's prompt settings: "<mode>" or "<mode>/<prompt>", with the input mode (`text`: the
question only, the paper's "LLMs (Text Only)"; `text+ocr`: the question plus the record's OCR
text, "Text + OCR Caption"; `image`: the question with its image) and the prompt (`step`:
step-by-step with `<STEPn>` marks, the default; `en-cot`: English chain of thought; `clp`:
Cross-Lingual Prompting)."""
from __future__ import annotations

from pathlib import Path

from tasks.errors import DataError
from tasks.items import Item


MODES = ("text", "text+ocr", "image")


PROMPTS = ("step", "en-cot", "clp")


DEFAULT_PROMPT = "step"


SETTINGS = MODES + tuple(f"{m}/{p}" for m in MODES for p in PROMPTS)


DEFAULT_SETTING = "text"


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
