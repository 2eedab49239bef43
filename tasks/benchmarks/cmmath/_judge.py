"""CMMaTH's GradeGPT-style judge: the prompt (`judge_prompt`) and the verdict parser
(`parse_verdict`), of which the package makes the contract's `Judge` (`CmmathJudge`).

The judge (paper: GradeGPT, "Cross-Lingual Judge-of-Chain") gets the question, the reference
answer and the model's response, and ends with "The consistency of the answers is: <Yes>." or
"<No>.". Running it (a run of its own, cached, resumable) is the core's `tasks.runs.judging`;
measuring it against GPT-4's verdicts is `_audit`.
"""
from __future__ import annotations

import re

SYSTEM_PROMPT = """\
You are an answer evaluation assistant for math problems. You are given a math question \
(usually in Chinese), its reference answer and a model's response. Decide whether the final \
answer in the model's output is the same answer as the reference answer.

Rules:
- Only the final answer matters, not the quality of the reasoning. Equivalent forms of the same \
value count as the same answer (1/2 and 0.5; 60° and 60 degrees; a number with or without its \
unit).
- Multiple choice: the answer is correct only if all of the right options are given and no \
other option is given.
- If the question has several blanks or several solutions, all of them must be given.
- If no definite answer can be found in the response (it stops, loops, says it cannot solve \
the problem, or leaves the answer blank), the verdict is No.

Answer in the Cross-Lingual Judge-of-Chain format, in English:
The relevant paragraph in the Model Response that provides the answer is
<quote the sentence of the response that gives its final answer, verbatim>
Understand the question in Chinese. The Chinese model response means:
<that sentence restated in English>
Next, let's analyze whether the correct answer has been given.
The reference answer <reference answer> is a <type of the reference answer: a numerical \
answer, an expression, an option letter, a text answer, ...>, and the output given in the model \
response is <the response's final answer>. The consistency of the answers is: <Yes>.

End with exactly one of "The consistency of the answers is: <Yes>." or \
"The consistency of the answers is: <No>."
"""

# The user turn of the authors' GradeGPT instructions (gradegpt_judgments_sample.jsonl).
USER_INTRO = "以下是某道题目, 答案和一条模型响应。请确定模型响应中是否给出了正确的参考答案"
USER_TEMPLATE = (USER_INTRO + "\nQuestion: {question}\nReference Answer: {reference}\n"
                 "Model Response: {response}\nJudgment Result: \n")


def judge_prompt(question: str, reference: str, response: str | None) -> tuple[str, str]:
    """(system prompt, user prompt) asking the judge about one response. The user turn is the
    authors' GradeGPT instruction format, filled in verbatim (cmmath.json's question and answer
    keep their trailing newline there, as in the authors' instructions)."""
    return SYSTEM_PROMPT, USER_TEMPLATE.format(question=question or "",
                                               reference=reference or "", response=response or "")


_CONSISTENCY_RE = re.compile(
    r"consistency\s+of\s+the\s+answers?\s+is\s*[:：]?\s*[*_\"'“”`]*\s*<?\s*(yes|no)\b\s*>?",
    re.IGNORECASE)
_BRACKETED_RE = re.compile(r"<\s*(yes|no)\s*>", re.IGNORECASE)
_BARE_RE = re.compile(r"[\s*_\"'“”`(\[]*(yes|no)[\s.!。)\]*_\"'“”`]*", re.IGNORECASE)


def parse_verdict(text: str | None) -> bool | None:
    """The judge's final verdict: True (Yes), False (No), or None when there is none to read
    (judge_failed). Reads "The consistency of the answers is: <Yes>." and the sample's
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


JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 1024}
