"""CMMaTH's judge: its prompt formats and its verdict rules, of which the package makes the
contract's `Judge` (`CmmathJudge`).

Prompt formats (`--judge BACKEND:NAME#prompt=...`):
  gpt4      (default) the authors' GPT-4 judge prompt (`judge_prompt_authors`, from their
            prompt/judge_prompt.py): the Cross-Lingual Judge-of-Chain instructions with three
            worked examples, then the question, the reference answer and the model response,
            all in one user message, as their judging scripts send it;
  gradegpt  the chat format a served GradeGPT checkpoint was trained on (the authors' GradeGPT
            instruction data): system "You are a helpful assistant.", user = their header
            line, then the question, reference answer and response (texts from the data
            directory's prompts_published.json).
Verdict rules (`#verdict=...`):
  strict    (default, ours) the verdict the judge ends with, "The consistency of the answers
            is: <Yes>/<No>" (brackets optional); none readable -> judge_failed, never a verdict;
  official  the authors' rule: right iff "Yes" occurs anywhere in the judge's text (their
            compare_answer_gradegpt*.py), so every reply is a verdict.
Running the judge (a run of its own, cached, resumable) is the core's `mathprobe.runs.judging`;
measuring it against GPT-4's verdicts is `judge_audit`.
"""
from __future__ import annotations

import re

from mathprobe.benchmarks.cmmath.data.published_texts import Published
from mathprobe.benchmarks.cmmath.grading.judge_prompt_authors import JUDGE_PROMPT, JUDGE_TEMPLATE

PROMPT_FORMATS = ("gpt4", "gradegpt")
VERDICT_RULES = ("strict", "official")

# GradeGPT's user turn after its header (GradeGPT/prompt/judge_prompt.py clp_templete_prompt)
GRADEGPT_TEMPLATE = "\nQuestion: {problem}\nReference Answer: {answer}\nModel Response: {response}\nJudgment Result: \n"


def judge_prompt(question: str, reference: str, response: str | None, prompt_format: str = "gpt4",
                 texts: Published | None = None) -> tuple[str | None, str]:
    """(system prompt or None, user prompt) asking the judge about one response, in
    `prompt_format`. cmmath.json's question and answer go in as they are (trailing newline
    included), as in the authors' code and instruction data. `texts` (the published prompts)
    are needed for the gradegpt format."""
    values = {"problem": question or "", "answer": reference or "",
              "model_response": response or "", "response": response or ""}
    if prompt_format == "gpt4":
        return None, JUDGE_PROMPT + JUDGE_TEMPLATE.format_map(values)
    if prompt_format == "gradegpt":
        if texts is None:
            raise ValueError("the gradegpt judge format needs the published prompts")
        return texts.gradegpt_system, texts.gradegpt_header + GRADEGPT_TEMPLATE.format_map(values)
    raise ValueError(f"unknown judge prompt format {prompt_format!r}; choose from {PROMPT_FORMATS}")


_CONSISTENCY_RE = re.compile(
    r"consistency\s+of\s+the\s+answers?\s+is\s*[:：]?\s*[*_\"'“”`]*\s*<?\s*(yes|no)\b\s*>?",
    re.IGNORECASE)
_BRACKETED_RE = re.compile(r"<\s*(yes|no)\s*>", re.IGNORECASE)
_BARE_RE = re.compile(r"[\s*_\"'“”`(\[]*(yes|no)[\s.!。)\]*_\"'“”`]*", re.IGNORECASE)


def parse_verdict(text: str | None) -> bool | None:
    """Our strict rule: the judge's final verdict, True (Yes), False (No), or None when there
    is none to read (judge_failed). Reads "The consistency of the answers is: <Yes>." and the
    "...is: Yes." form (the last one wins), else the last bracketed <Yes>/<No>, else a reply
    that is nothing but Yes or No."""
    if not text:
        return None
    for pattern in (_CONSISTENCY_RE, _BRACKETED_RE):
        hits = pattern.findall(text)
        if hits:
            return hits[-1].lower() == "yes"
    m = _BARE_RE.fullmatch(text.strip())
    return None if m is None else m.group(1).lower() == "yes"


def parse_verdict_official(text: str | None) -> bool:
    """The authors' rule: right iff "Yes" occurs in the judge's text (case-sensitive, anywhere:
    a quoted "Yes" counts too, which the strict rule avoids)."""
    return "Yes" in (text or "")


VERDICT_PARSERS = {"strict": parse_verdict, "official": parse_verdict_official}


JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 1024}
