"""How much the rule stage decides, and how often it decides right, measured on three kinds of
CMMaTH answers with a reference verdict:

  solutions  the human worked solutions the records carry (`analysis`): a record's own solution
             must grade right (kind `own`); another record's solution, for a reference of the
             same kind (option letters, or a value) with a different answer, must grade wrong
             (kind `other`);
  gradegpt   real model responses with GPT-4's verdicts: the authors' GradeGPT judgment
             sample (gradegpt_judgments_sample.jsonl in the data directory);
  authors    real model responses with the authors' GPT-4 judge's verdicts in their result
             format (`output_correct`), e.g. a sample of their GPT-4V result file
             (result/gpt4v/eval/eval_result.json of zzli2022/CMMaTH), given by path.

The reference verdicts of the last two are a judge's, and that judge errs too: a disagreement is
a case to read (`Outcome`), not proof that the rules are wrong.

Every case is split once, by a hash of its key (the problem_id; for the GradeGPT sample, which
has none, the question text), into a tuning part (the cases one may read while improving the
rules) and a held-out part (never read, only counted): the held-out figures are the honest ones.
Answer types: `choice` (the reference is a set of option letters the question offers) and
`free_form` (anything else, multi-part answers included). `perf/cmmath_rules.py` prints
every figure.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mathprobe.benchmarks.cmmath.data.options import gold_letters
from mathprobe.errors import DataError
from mathprobe.files import read_result_rows, response_text
from mathprobe.items import Item

HOLDOUT_SALT = "cmmath-rules-holdout:"
HOLDOUT_TENTHS = 4          # 40% of the cases are held out


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def split_of(key: str) -> str:
    """'heldout' for about 40% of the keys (fixed by the key: a problem_id), else 'tuning'."""
    return "heldout" if _h(HOLDOUT_SALT + key) % 10 < HOLDOUT_TENTHS else "tuning"


def reference_kind(item: Item) -> str:
    """'letters' (a choice answered by option letters) or 'value' (anything else)."""
    return "letters" if gold_letters(item.gold) is not None else "value"


def answer_type(item: Item) -> str:
    """'choice' when the reference is a set of option letters of a choice question, else
    'free_form' (the records' own answer_type calls some multi-part value answers 'choice')."""
    return "choice" if gold_letters(item.gold) is not None and (
        item.choices or item.part == "choice") else "free_form"


def _reference_key(item: Item) -> str:
    letters = gold_letters(item.gold)
    if letters is not None:
        return "".join(sorted(letters))
    return re.sub(r"[\s$]", "", item.gold)


@dataclass(frozen=True)
class Case:
    split: str          # tuning | heldout
    kind: str           # own (must grade right) | other (must grade wrong) | judged
    item: Item          # the question graded
    source: str         # problem_id whose solution is the response, or the judged record's key
    response: str
    expected: bool
    origin: str = "solutions"       # solutions | gradegpt | authors

    @property
    def answer_type(self) -> str:
        return answer_type(self.item)


def cases(items: Iterable[Item]) -> list[Case]:
    """Per record with a solution text: its own solution (expected right), and the solution of
    the next record, in hash order within the same split, whose reference is of the same kind
    and differs (expected wrong)."""
    with_solution = [i for i in items if (i.payload.get("analysis") or "").strip()]
    out: list[Case] = []
    for part in ("tuning", "heldout"):
        ordered = sorted((i for i in with_solution if split_of(i.item_id) == part),
                         key=lambda i: _h(i.item_id))
        for k, item in enumerate(ordered):
            out.append(Case(part, "own", item, item.item_id, item.payload["analysis"], True))
            for other in ordered[k + 1:] + ordered[:k]:
                if reference_kind(other) == reference_kind(item) and \
                        _reference_key(other) != _reference_key(item):
                    out.append(Case(part, "other", item, other.item_id,
                                    other.payload["analysis"], False))
                    break
    return out


@dataclass(frozen=True)
class Judged:
    """A real response with a judge's verdict: key (problem_id, or the question text where the
    record has none), question, reference answer, response, the judge's verdict."""
    key: str
    question: str
    reference: str
    response: str
    verdict: bool


def judged_cases(records: Iterable[Judged], origin: str) -> list[Case]:
    """Cases of judged responses, each graded as the question it answers (a choice question
    when its reference is a set of the option letters its text offers)."""
    from mathprobe.benchmarks.cmmath.grading.judge_audit import sample_item

    return [Case(split_of(r.key), "judged",
                 sample_item(r.question, r.reference, r.key if len(r.key) <= 40
                             else hashlib.sha256(r.key.encode()).hexdigest()[:12]),
                 r.key, r.response, r.verdict, origin) for r in records]


def gradegpt_records(path: str | Path) -> list[Judged]:
    """The GradeGPT judgment sample as judged records (key: the question text)."""
    from mathprobe.benchmarks.cmmath.grading.judge_audit import read_judgment_sample

    return [Judged(r["question"], r["question"], r["reference"], r["response"], r["gpt4_verdict"])
            for r in read_judgment_sample(path)]


def authors_records(path: str | Path) -> list[Judged]:
    """Records in the authors' result format with their judge's verdicts (problem_id,
    question, answer, model_response or response, output_correct "Yes"/"No"), as a JSON array
    or JSON lines; a record missing one of them is a DataError naming its row and field."""
    path = Path(path)
    out = []
    for n, row in read_result_rows(path):
        for field in ("problem_id", "question", "answer"):
            if not isinstance(row.get(field), str):
                raise DataError(path, "missing or not a string", row=n, field=field)
        if row.get("output_correct") not in ("Yes", "No"):
            raise DataError(path, f"expected 'Yes' or 'No', got {row.get('output_correct')!r}",
                            row=n, field="output_correct")
        response = response_text(path, n, row, row["problem_id"], ("model_response", "response"))
        out.append(Judged(row["problem_id"], row["question"], row["answer"], response or "",
                          row["output_correct"] == "Yes"))
    return out


@dataclass
class Tally:
    n: int = 0
    decided: int = 0
    agreed: int = 0

    @property
    def decided_share(self) -> float:
        return self.decided / self.n if self.n else 0.0

    @property
    def agreement(self) -> float:
        return self.agreed / self.decided if self.decided else 0.0


@dataclass(frozen=True)
class Outcome:
    case: Case
    verdict: bool | None

    @property
    def agrees(self) -> bool | None:
        return None if self.verdict is None else self.verdict is self.case.expected


def grade_all(grade: Callable[[Item, str], bool | None], chosen: Sequence[Case]) -> list[Outcome]:
    return [Outcome(c, grade(c.item, c.response)) for c in chosen]


def tally(outcomes: Iterable[Outcome], key: Callable[[Case], tuple]) -> dict[tuple, Tally]:
    """Tallies of the outcomes grouped by `key(case)`: cases, decided, decided as expected."""
    out: dict[tuple, Tally] = {}
    for o in outcomes:
        t = out.setdefault(key(o.case), Tally())
        t.n += 1
        if o.verdict is not None:
            t.decided += 1
            t.agreed += bool(o.agrees)
    return out


def measure(grade: Callable[[Item, str], bool | None], chosen: Sequence[Case]
            ) -> dict[tuple[str, str], Tally]:
    """Tallies per (split, kind) and per (split, 'all'): cases, decided, decided as expected."""
    outcomes = grade_all(grade, chosen)
    out = tally(outcomes, lambda c: (c.split, c.kind))
    out.update(tally(outcomes, lambda c: (c.split, "all")))
    return out
