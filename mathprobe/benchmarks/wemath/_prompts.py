"""WE-MATH's prompts (paper, Table 3): the multiple-choice template, and knowledge-concept
augmentation (KCA), which adds the question's knowledge card before it."""
from __future__ import annotations

from mathprobe.items import Item

SETTINGS = ("plain", "kca")          # the paper's prompt and knowledge-concept augmentation
DEFAULT_SETTING = "plain"

PROMPT = (
    "Now, we require you to solve a multiple-choice math question. {kca_intro}Please briefly "
    "describe your thought process and provide the final answer(option).\n{kca_line}"
    "Question: {question}\nOption: {option}\n"
    "Regarding the format, please answer following the template below, and be sure to include "
    "two <> symbols:\n<Thought process>: <<your thought process>> <Answer>: <<your option>>"
)
KCA_INTRO = ("We will provide you with the relevant knowledge concepts of this question for your "
             "reference. ")


def build_prompt(item: Item, setting: str = DEFAULT_SETTING) -> str:
    """The prompt of a question under `setting` (`plain` or `kca`)."""
    row = item.payload
    if setting == "plain":
        return PROMPT.format(kca_intro="", kca_line="", question=row["question"],
                             option=row["option"])
    if setting == "kca":
        desc = row.get("knowledge concept description") or row["knowledge concept"]
        return PROMPT.format(kca_intro=KCA_INTRO, kca_line=f"Knowledge concept: {desc}\n",
                             question=row["question"], option=row["option"])
    raise ValueError(f"unknown WE-MATH setting {setting!r}; choose from {SETTINGS}")
