"""WE-MATH's judged extractor, as VLMEvalKit grades WE-MATH: the authors' regex first (grader
`official`), and where it finds no letter, a judge model maps the response to an option, with
VLMEvalKit's choice-extraction protocol. Its verdicts are the graders `judge:<judge>` (the
answers the regex could not read) and `cascade:<judge>` (every answer: the regex's letter, else
the judge's), beside `official`, which stays the default of reports.

The protocol, reproduced from open-compass/VLMEvalKit at commit
1445ec4f6fd02b25bad0d713690ee01a24b3b689 (2026-06-17):
  * the prompt: `build_prompt_wemath` in vlmeval/dataset/utils/multiple_choice.py (the
    matching instructions, two worked examples, then the question, the options and the
    response between <start> and <end>), its options written by `build_option_str` in
    vlmeval/smp/vlm.py ("There are several options: \\n" then "A. text\\n" per option); sent as
    one user message, no system prompt, temperature 0, at most 2048 new tokens (the defaults of
    their OpenAIWrapper, vlmeval/api/gpt.py);
  * reading the judge's reply: `can_infer` in vlmeval/utils/matching_util.py: a single option
    letter standing alone near the end of the reply ("Z" when the judge says no option fits,
    or the reply refuses), or "the answer is X", or else the one option whose text the reply
    contains; a reply it cannot read is asked again in VLMEvalKit (three times, then a random
    option is drawn); here it is `judge_failed`, never a verdict, re-asked by --retry-failed.
The option texts are the parts of a row's `option` string ("A. 30°;B. 60°;..."), which
VLMEvalKit's WeMath.tsv carries as columns A-E.
"""
from __future__ import annotations

import re
from typing import Any, ClassVar

from mathprobe.benchmarks.wemath.data.dataset import OPTION_LETTER_RE
from mathprobe.contract import Judge, Verdict
from mathprobe.items import Item
from mathprobe.options import LETTERS

JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 2048}

# build_prompt_wemath's template (VLMEvalKit, vlmeval/dataset/utils/multiple_choice.py)
TEMPLATE = (
    'You are an AI assistant who will help me to match '
    'an answer with several options of a single-choice question. '
    'You are provided with a question, several options, and an answer, '
    'and you need to find which option is most similar to the answer. '
    'If the meaning of all options are significantly different from the answer, output Z. '
    'Your should output a single uppercase character in A, B, C, D, E, F, G (if they are valid options), and Z. \n'
    'Example 1: \n'
    'Question: <start>\nWhat is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n<end>\n'
    'Answer: <start>\na cute teddy bear\n<end>\nYour output: A\n'
    'Example 2: \n'
    'Question: <start>\nWhat is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n<end>\n'
    'Answer: <start>\nSpider\n<end>\nYour output: Z\n'
    'Example 3: \n'
    'Question: <start>\n{}\nOptions: {}\n<end>\nAnswer: <start>\n{}\n<end>\nYour output: '
)
# the answer-format requirement build_prompt_wemath removes from the question
REQUIREMENT = ("Regarding the format, please answer following the template below, and be sure to "
               "include two <> symbols:\n<Thought process>: <<your thought process>> <Answer>: "
               "<<your option>>")

# can_infer_option: replies that refuse, read as "no option" (Z)
REFUSALS = ("Sorry, I can't help with images of people yet.", "I can't process this file.",
            "I'm sorry, but without the image provided", "Cannot determine the answer")
API_FAILURE = "Failed to obtain answer via API"
VERBOSE_ANSWER_RE = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")
NO_OPTION = "Z"


def option_texts(option: str) -> dict[str, str]:
    """letter -> text of a row's option string: 'A. 30°;B. 60°; E. No correct answer' ->
    {'A': '30°', 'B': '60°', 'E': 'No correct answer'} (letters in sequence, as loaded)."""
    marks = [m for m in OPTION_LETTER_RE.finditer(option)]
    out: dict[str, str] = {}
    want = 0
    kept = []
    for m in marks:
        if m.group(1) == LETTERS[want]:
            kept.append(m)
            want += 1
    for k, m in enumerate(kept):
        end = kept[k + 1].start() if k + 1 < len(kept) else len(option)
        out[m.group(1)] = option[m.end():end].strip().rstrip(";；").strip()
    return out


def option_string(options: dict[str, str]) -> str:
    """build_option_str (VLMEvalKit, vlmeval/smp/vlm.py)."""
    return "There are several options: \n" + "".join(f"{k}. {v}\n" for k, v in options.items())


def judge_prompt(question: str, options: dict[str, str], response: str) -> str:
    """build_prompt_wemath: the matching prompt about one response."""
    return TEMPLATE.format(question.replace(REQUIREMENT, ""), option_string(options), response)


def _option_alone(answer: str, letters: set[str]) -> str | None:
    """can_infer_option: the one option letter that stands alone among the reply's last five
    words (after .()[],:;!*#{} become spaces); Z for a refusal or a lone Z; else a verbose
    "the answer is X"."""
    if API_FAILURE in answer:
        return None
    if any(r in answer for r in REFUSALS):
        return NO_OPTION
    words = [w.strip() for w in re.sub(r"[.()\[\],:;!*#{}]", " ", answer).split()]
    found = [c for c in letters if c in words]
    if len(found) == 1:
        letter = found[0]
        if words.index(letter) > len(words) - 5:
            return letter
    elif not found and sum(1 for c in (NO_OPTION, "") if c in words) == 1:
        return NO_OPTION
    m = VERBOSE_ANSWER_RE.search(answer)
    if m and m.group(1).upper() in letters:
        return m.group(1).upper()
    return None


def _option_text(answer: str, options: dict[str, str]) -> str | None:
    """can_infer_text: the one option whose text the (short) reply contains."""
    answer = answer.lower()
    if len(answer) > 2 * sum(len(str(v)) for v in options.values()):
        return None
    found = [k for k, v in options.items() if str(v).lower() in answer]
    return found[0] if len(found) == 1 else None


def infer_option(answer: str | None, options: dict[str, str]) -> str | None:
    """can_infer: the option letter (or Z: none fits) the judge's reply names; None if unreadable."""
    if answer is None:
        return None
    answer = str(answer)
    return _option_alone(answer, set(options)) or _option_text(answer, options)


class WemathJudge(Judge):
    """A judge for the answers the authors' regex finds no letter in (VLMEvalKit's protocol)."""
    rules_grader: ClassVar[str] = "official"
    params: ClassVar[dict[str, Any]] = JUDGE_PARAMS
    cascade_is_default: ClassVar[bool] = False

    def asks(self, extracted: str | None, correct: bool | None) -> bool:
        return correct is not None and extracted is None     # graded, but no letter found

    def prompt(self, item: Item, response: str | None) -> tuple[str | None, str]:
        return None, judge_prompt(item.payload.get("question", item.question),
                                  option_texts(item.payload.get("option", "")), response or "")

    def parse(self, text: str | None) -> str | None:
        """The letter (or Z) the reply names among A-H; `read` reads it against the item's own
        options."""
        return None if text is None else _option_alone(str(text), set(LETTERS))

    def read(self, item: Item, text: str | None) -> Verdict | None:
        options = option_texts(item.payload.get("option", ""))
        letter = infer_option(text, options)
        if letter is None:
            return None
        return letter, letter == item.gold
