"""ConceptMath's prompt settings (paper, Sec. 4): zero-shot, zero-shot chain-of-thought and
few-shot."""
from __future__ import annotations

from tasks.benchmarks.conceptmath._data import FEWSHOT_FILE, language
from tasks.errors import DataError
from tasks.items import Item

SETTINGS = ("zs", "zs-cot", "fs")     # zero-shot, zero-shot chain-of-thought, 5-shot
DEFAULT_SETTING = "zs"
COT_INSTRUCTION = {"en": "Let's think step by step.", "zh": "让我们一步一步地思考。"}


def build_prompt(item: Item, setting: str = DEFAULT_SETTING,
                 exemplars: tuple[tuple[str, str], ...] | None = None) -> str:
    """zs: the question alone; zs-cot: the question and a step-by-step instruction (in the
    system's language); fs: the system's 5 exemplars as Q:/A: pairs, then the question."""
    question = item.question
    if setting == "zs":
        return question
    if setting == "zs-cot":
        return f"{question}\n{COT_INSTRUCTION[language(item.group_id)]}"
    if setting == "fs":
        exemplars = exemplars if exemplars is not None else item.exemplars
        if not exemplars:
            raise DataError(FEWSHOT_FILE, "no few-shot exemplars for this system: the few-shot "
                            "setting needs fewshot_5shot.json in the data dir",
                            field=item.group_id, item=item.item_id)
        shots = "".join(f"Q: {q}\nA: {a}\n\n" for q, a in exemplars)
        return f"{shots}Q: {question}\nA:"
    raise ValueError(f"unknown ConceptMath setting {setting!r}; choose from {SETTINGS}")
