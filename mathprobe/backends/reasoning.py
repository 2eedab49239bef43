"""Reasoning models: which models think before they answer, what their APIs take, and how their
replies are read (docs/reasoning-models.md).

Which model is a reasoning model is declared, never guessed from a failed request: the table
`reasoning_models.toml` beside the price table (merged with the file MATHPROBE_REASONING_MODELS
names), or the user's mark `#reasoning` after the model's name (`openai:my-r1#reasoning`, for a
model the table does not know). What a model takes (`Traits`) decides what a run sends it; the
backend kinds that serve reasoning models apply those rules (openai_chat, anthropic_messages).

A reply is read into its answer and its reasoning (`split`): the reasoning of an open model
comes in `message.reasoning_content` (vLLM and SGLang with a reasoning parser) or as a leading
`<think>...</think>` block in the text (without one; a chat template that opens the block itself
leaves only `...</think>`). Graders, judges and the item browser see the answer; the reasoning
is stored apart. A reply that stopped at the token cap before its answer (inside the reasoning,
or with nothing after it) is `truncated` (`cut_before_answer`): never graded, left out of the
figures like a failed call, re-asked by --retry-failed or by a run with a larger --max-tokens.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mathprobe.errors import MathprobeError

TABLE = Path(__file__).with_name("reasoning_models.toml")
MARK = "#reasoning"              # NAME#reasoning: the user says NAME is a reasoning model
TRUNCATED = "truncated"          # the status of a reply cut at the token cap before its answer
EFFORTS = ("minimal", "low", "medium", "high")
# a dated snapshot of a listed name: o4-mini-2025-04-16, claude-opus-4-1-20250805
_SNAPSHOT = re.compile(r"-\d{4}-?\d{2}-?\d{2}$")


@dataclass(frozen=True)
class Traits:
    """What a model's API takes, as far as reasoning goes."""
    reasoning: bool = False          # it reasons before it answers, unasked (OpenAI's o-series)
    temperature: bool = True         # it takes a temperature (OpenAI's reasoning models: only 1)
    max_tokens: str = "max_tokens"   # the parameter that caps its new tokens
    efforts: tuple[str, ...] = ()    # the reasoning_effort levels it takes (() : none known)
    thinking: bool = False           # it takes Anthropic's extended thinking (--thinking-budget)
    source: str = ""                 # where this is known from (for messages and the run card)

    def adapt(self, params: dict) -> dict:
        """`params` as this model takes them: the token cap under its API's name, no temperature
        to a model that takes none (what a judge or probe asks with its fixed parameters)."""
        out = dict(params)
        if self.max_tokens != "max_tokens" and "max_tokens" in out:
            out[self.max_tokens] = out.pop("max_tokens")
        if not self.temperature:
            out.pop("temperature", None)
        return out


PLAIN = Traits()


@lru_cache(maxsize=8)
def load(extra: str | None) -> dict[str, dict[str, dict]]:
    table = tomllib.loads(TABLE.read_text())
    if extra:
        try:
            more = tomllib.loads(Path(extra).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise MathprobeError(f"MATHPROBE_REASONING_MODELS={extra}: cannot read the table of "
                                 f"reasoning models ({exc})") from exc
        for kind, models in more.items():
            for name, entry in models.items():
                table.setdefault(kind, {}).setdefault(name, {}).update(entry)
    return table


def table(kind: str) -> dict[str, dict]:
    """The declared reasoning models of a backend kind, name -> entry."""
    from mathprobe import settings

    return load(settings.get("MATHPROBE_REASONING_MODELS")).get(kind, {})


def listed(kind: str, model: str) -> dict | None:
    """The table's entry for `model` (or the name it is a dated snapshot of), or None."""
    models = table(kind)
    if model in models:
        return models[model]
    base = _SNAPSHOT.sub("", model)
    return models.get(base) if base != model else None


def marked(name: str) -> bool:
    return name.endswith(MARK)


def unmarked(name: str) -> str:
    return name[:-len(MARK)] if marked(name) else name


def traits(kind: str, name: str) -> Traits:
    """What model `name` (NAME of BACKEND:NAME, `#reasoning` included if given) of `kind` takes."""
    model = unmarked(name)
    entry = listed(kind, model)
    if kind == "openai":
        if entry is not None:
            return Traits(reasoning=True, temperature=bool(entry.get("temperature", False)),
                          max_tokens=entry.get("max_tokens", "max_completion_tokens"),
                          efforts=tuple(entry.get("effort", EFFORTS)),
                          source="the table of reasoning models")
        if marked(name):
            return Traits(reasoning=True, max_tokens="max_completion_tokens",
                          source=f"{MARK} in the model's name")
    elif kind == "anthropic":
        if entry is not None:
            return Traits(thinking=True, source="the table of reasoning models")
        if marked(name):
            return Traits(thinking=True, source=f"{MARK} in the model's name")
    return PLAIN


def declared(kind: str) -> str:
    """The table's models of `kind`, for messages: 'o1, o3, o3-mini, ...'."""
    return ", ".join(table(kind))


# -- replies ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reply:
    """A reply read apart: the answer (what is graded), the reasoning (None: none seen), and
    whether the reasoning was still open where the reply ended."""
    answer: str | None
    reasoning: str | None = None
    open: bool = False


def split(content: str | None, reasoning: str | None = None) -> Reply:
    """The answer and the reasoning of a chat reply: `reasoning` as the server gave it apart
    (vLLM / SGLang `reasoning_content`), else a leading `<think>...</think>` block of
    `content` (unclosed: the reply ended inside it), or the text before a lone `</think>` (a
    chat template that opened the block in the prompt)."""
    if reasoning:
        return Reply(content, reasoning.strip())
    if not content:
        return Reply(content)
    text = content.lstrip()
    if text.startswith("<think>"):
        thought, closed, answer = text[len("<think>"):].partition("</think>")
        return Reply(answer.lstrip() if closed else "", thought.strip(), open=not closed)
    if "</think>" in content and "<think>" not in content:
        thought, _, answer = content.partition("</think>")
        return Reply(answer.lstrip(), thought.strip())
    return Reply(content)


def cut_before_answer(reply: Reply, at_cap: bool, reasoning_model: bool) -> bool:
    """Whether a reply is `truncated`: it stopped at the token cap (`at_cap`) inside its
    reasoning, or with no answer after it, from a model that reasons (its reply shows
    reasoning, or it is declared a reasoning model). A plain model's reply cut at the cap is
    its answer, as before (graded)."""
    if not at_cap:
        return False
    return reply.open or ((reply.reasoning is not None or reasoning_model)
                          and not (reply.answer or "").strip())


def truncation_error(where: str, output_tokens: int | None, cap: int | None) -> str:
    """The reason stored with a truncated reply, e.g. 'cut at the token cap (4096) inside the
    reasoning: 4096 tokens out'."""
    at = f" ({cap})" if cap is not None else ""
    used = f": {output_tokens} tokens out" if output_tokens is not None else ""
    return f"cut at the token cap{at} {where}{used}"
