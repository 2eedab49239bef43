"""Why a model failed: a benchmark's error taxonomy, declared once. Its types with their
definitions as the paper writes them and the paper's name for where (`source`), how a response
is labelled (`protocol`: WE-MATH counts only the first error), the type a refusal or an empty
answer gets by rule (`no_attempt`), the types mathprobe adds (named as ours, e.g. ConceptMath's
"Other Error" for what fits none of the paper's), and the error-analysis figures of the paper
beyond the distribution every taxonomy has (`mathprobe.figures.ErrorFigure`: WE-MATH Figure 11,
ConceptMath Table 4), each read from a view of the benchmark's SQL.

A benchmark that has one sets `Benchmark.error_taxonomy` (optional: a plug-in without one is
not labelled). `mathprobe errors RUN --judge BACKEND:NAME` (mathprobe/runs/labelling.py) labels
every answer the run's report grader calls wrong: rules first, then a labeller model asked with
`prompt` (the question, the reference answer, the model's whole response, the definitions) and
read with `read_label`, which gives nothing, never a guess, for a reply without a readable
`Error type:` line. docs/error-analysis.md shows the prompt and the taxonomies.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from mathprobe.figures import ErrorFigure

# The labeller's generation parameters: greedy, and room to quote a step and say why.
LABEL_PARAMS = {"temperature": 0.0, "max_tokens": 1024}


@dataclass(frozen=True)
class ErrorType:
    """One type: its name and definition exactly as the paper writes them; `source` empty for
    the taxonomy's own source, else who defined it (a type mathprobe adds)."""
    name: str
    definition: str
    source: str = ""


@dataclass(frozen=True)
class Label:
    """What a labeller said of one wrong answer."""
    error_type: str
    first_error: str | None = None
    rationale: str | None = None


@dataclass(frozen=True)
class ErrorTaxonomy:
    """A benchmark's error types (the paper's, then any mathprobe adds), where they are from,
    how an answer is labelled, and the paper's figures of them."""
    source: str                       # 'WE-MATH (Qiao et al. 2024), Appendix E.2, Table 9'
    types: tuple[ErrorType, ...]      # the paper's, in its order
    protocol: str                     # how one response is labelled, as the paper says
    distribution: str                 # title of the distribution of the types (every report)
    no_attempt: str | None = None     # the type a refusal or empty answer gets by rule
    added: tuple[ErrorType, ...] = ()  # types mathprobe adds (their `source` says so)
    figures: tuple[ErrorFigure, ...] = ()

    @property
    def all_types(self) -> tuple[ErrorType, ...]:
        return self.types + self.added

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.all_types)

    def canonical(self, text: str | None) -> str | None:
        """The type `text` names (case, spacing, quotes, brackets and a trailing full stop
        aside; or a name followed by an explanation), None if it names none, or more than one
        anywhere in it."""
        if text is None:
            return None
        said = _squash(text)
        by_key = {_squash(n): n for n in self.names}
        if said in by_key:
            return by_key[said]
        named = {n for k, n in by_key.items()
                 if re.search(rf"(?<![a-z]){re.escape(k)}(?![a-z])", said)}
        if len(named) != 1:            # none, or two types named: no label, never a guess
            return None
        (name,) = named
        return name if said.startswith(_squash(name)) else None

    def definitions(self) -> str:
        """The definitions as the prompt and the docs give them, each with its source."""
        lines = []
        for t in self.all_types:
            whose = f" (defined by {t.source})" if t.source else ""
            lines.append(f"- {t.name}{whose}: {t.definition}")
        return "\n".join(lines)

    def prompt(self, question: str, reference: str, response: str) -> tuple[str, str]:
        """(system, user) asking a labeller which type the first error of `response` is."""
        system = ("You analyse why a model's answer to a math problem is wrong. You classify "
                  "its error with a published error taxonomy, quoting the model's own words.")
        user = (
            "A model answered the problem below; its answer was graded wrong.\n\n"
            f"Problem:\n{question}\n\n"
            f"Reference answer: {reference}\n\n"
            f"The model's whole response:\n<<<\n{response}\n>>>\n\n"
            f"Error types ({self.source}):\n{self.definitions()}\n\n"
            f"How to label: {self.protocol}\n\n"
            "Find the first step of the response that is wrong and quote it exactly. Then "
            "answer in three lines, the last of them the error type, named exactly as above:\n"
            "First error: \"<the quoted step>\"\n"
            "Reason: <one sentence: why that step is wrong>\n"
            f"Error type: <one of: {', '.join(self.names)}>")
        return system, user

    def read_label(self, text: str | None) -> Label | None:
        """The label a labeller's reply gives: its last `Error type:` line naming one type
        (None when there is none, or it names no type or two: label_failed, never a
        guess), with the quoted first error and the reason where the reply gives them."""
        if not text:
            return None
        said = [m.group(1) for m in _TYPE_LINE.finditer(text)]
        error_type = self.canonical(said[-1]) if said else None
        if error_type is None:
            return None
        return Label(error_type, _field(text, _FIRST_LINE), _field(text, _REASON_LINE))


_TYPE_LINE = re.compile(r"^[\W_]*error[\s_-]*type[\W_]*?[:：]\s*(.+?)\s*$", re.I | re.M)
_FIRST_LINE = re.compile(r"^[\W_]*first[\s_-]*error[\W_]*?[:：]\s*(.+?)\s*$", re.I | re.M)
_REASON_LINE = re.compile(r"^[\W_]*reason[\W_]*?[:：]\s*(.+?)\s*$", re.I | re.M)


def _squash(text: str) -> str:
    """A type name as compared: lower case, no quotes, brackets, stars or outer punctuation,
    single spaces."""
    text = re.sub(r"[\"'`*<>\[\]{}()“”‘’]", "", text).strip().rstrip(".。;,:").strip()
    return " ".join(text.lower().split())


def _field(text: str, pattern: re.Pattern) -> str | None:
    found = pattern.findall(text)
    if not found:
        return None
    value = found[-1].strip()
    if len(value) >= 2 and value[0] in "\"“'" and value[-1] in "\"”'":
        value = value[1:-1].strip()
    return value or None


__all__ = ["ErrorTaxonomy", "ErrorType", "LABEL_PARAMS", "Label"]
