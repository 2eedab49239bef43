"""ConceptMath's prompt settings (paper, Sec. 4): zero-shot, zero-shot chain-of-thought and
few-shot.

Few-shot is what the authors' evaluation sends (`evaluation/utils/prompt_utils.py`): the
system's 5 exemplars as a multi-turn chat, each a user turn (the question) and an assistant turn
(the worked answer ending "Therefore, the answer is ..." / "因此，答案是..."), then the question
as the last user turn. Their texts are read from the data dir at run time
(`fewshot_authors_chat.json`). Chat backends send the turns as messages; backends that take one
text get them flattened (`mathprobe.backends.transcript`). The repository has no text for zero-shot
or chain-of-thought: the question alone, and the question with a step-by-step instruction.
"""
from __future__ import annotations

from mathprobe.benchmarks.conceptmath.data.dataset import FEWSHOT_FILE, language
from mathprobe.errors import DataError
from mathprobe.items import Chat, Item, given

SETTINGS = ("zs", "zs-cot", "fs")     # zero-shot, zero-shot chain-of-thought, 5-shot
DEFAULT_SETTING = "zs"
COT_INSTRUCTION = {"en": "Let's think step by step.", "zh": "让我们一步一步地思考。"}


def build_prompt(item: Item, setting: str = DEFAULT_SETTING,
                 exemplars: tuple[tuple[str, str], ...] | None = None) -> str | Chat:
    """zs: the question alone; zs-cot: the question and a step-by-step instruction (in the
    system's language); fs: a chat, the system's 5 exemplars as user / assistant turns, then
    the question as the final user turn."""
    question = item.question
    if setting == "zs":
        return question
    if setting == "zs-cot":
        return f"{question}\n{COT_INSTRUCTION[language(given(item.group_id, 'group_id'))]}"
    if setting == "fs":
        exemplars = exemplars if exemplars is not None else item.exemplars
        if not exemplars:
            raise DataError(FEWSHOT_FILE, "no few-shot exemplars for this system: the few-shot "
                            f"setting needs {FEWSHOT_FILE} in the data dir's conceptmath/",
                            field=item.group_id, item=item.item_id)
        turns = tuple(t for q, a in exemplars for t in (("user", q), ("assistant", a)))
        return Chat(turns=turns, prompt=question)
    raise ValueError(f"unknown ConceptMath setting {setting!r}; choose from {SETTINGS}")
