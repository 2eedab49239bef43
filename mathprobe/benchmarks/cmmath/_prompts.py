"""CMMaTH's prompt settings: "<mode>" or "<mode>/<prompt>", with the input mode (`text`: the
question only, the paper's "LLMs (Text Only)"; `text+ocr`: the question plus the record's OCR
text, "Text + OCR Caption"; `image`: the question with its image) and the prompt, each the
published text read from the data directory (_published): `step` (the default: the authors'
step-by-step template with its worked example, `<STEPn>` marks, paper Table 6), `plain` (the
authors' plain template, their code's default), `en-cot` (paper Table 10) and `clp`
(Cross-Lingual Prompting with its worked example, paper Table 11)."""
from __future__ import annotations

from pathlib import Path

from mathprobe.benchmarks.cmmath.data.published_texts import Published, published
from mathprobe.errors import DataError
from mathprobe.items import Item

MODES = ("text", "text+ocr", "image")


PROMPTS = ("step", "plain", "en-cot", "clp")


DEFAULT_PROMPT = "step"


SETTINGS = MODES + tuple(f"{m}/{p}" for m in MODES for p in PROMPTS)


DEFAULT_SETTING = "text"


def parse_setting(setting: str) -> tuple[str, str]:
    """'text' -> ('text', 'step'); 'image/clp' -> ('image', 'clp')."""
    if setting not in SETTINGS:
        raise ValueError(f"unknown CMMaTH setting {setting!r}; choose from {', '.join(SETTINGS)}")
    mode, _, prompt = setting.partition("/")
    return mode, prompt or DEFAULT_PROMPT


# How the published texts (_published) make a prompt. `plain` and `step` are the authors' code
# templates with the question put in (they send the system text, the worked example and the
# question as one message). The paper's Tables 10 (En-CoT) and 11 (CLP) give a system prompt
# and one worked example each; they are assembled the same way, as one message: the system
# text, the example, then the question in the example's own form ("Question: ... Model
# response:", "Request: ... Reason Result:"), the model continuing from there. The question
# goes in as cmmath.json has it (the authors' templates get it untouched, as their code does).
def _assemble(prompt: str, texts: Published, question: str) -> str:
    if prompt == "plain":
        return texts.plain.replace("{question}", question)
    if prompt == "step":
        return texts.step.replace("{question}", question)
    if prompt == "en-cot":
        return (f"{texts.en_cot_system}\n\n{texts.en_cot_example}\n\n"
                f"Question: {question.strip()}\nModel response:")
    return (f"{texts.clp_system}\n\n{texts.clp_example}\n\n"
            f"Request: {question.strip()}\nReason Result:")


# Our addition for the "Text + OCR Caption" mode: the record's OCR text after the question.
OCR_INTRO = {"plain": "\n\n图中的文字（OCR识别结果）：{ocr}",
             "step": "\n\n图中的文字（OCR识别结果）：{ocr}",
             "en-cot": "\n\nText found in the figure (OCR): {ocr}",
             "clp": "\nText found in the figure (OCR): {ocr}"}


NO_OCR = {"plain": "（未识别到文字）", "step": "（未识别到文字）", "en-cot": "(none)", "clp": "(none)"}


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
    question = item.question.rstrip() + context if context else item.question
    return _assemble(prompt, published(getattr(item, "data_dir", "")), question)


def request_image(item: Item, setting: str) -> str | None:
    """The image sent with the request: the question's (first) image in the `image` mode only;
    the text modes never carry one. build_prompt has checked that it exists."""
    mode, _ = parse_setting(setting)
    files = image_files(item)
    return str(files[0]) if mode == "image" and files else None
