"""How much the rule stage decides, and how often it decides right, measured on the human
worked solutions the CMMaTH records carry (`analysis`): a record's own solution must grade
right; another record's solution, for a reference of the same kind (option letters, or a value)
with a different answer, must grade wrong.

The records are split once, by a hash of their problem_id, into a tuning part (the cases one
may read while improving the rules) and a held-out part (never read, only counted): the
held-out figures are the honest ones. `benchmarks/cmmath_rules.py` prints both.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from mathprobe.tasks.benchmarks.cmmath._options import gold_letters
from mathprobe.tasks.items import Item

HOLDOUT_SALT = "cmmath-rules-holdout:"
HOLDOUT_TENTHS = 4          # 40% of the records are held out


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def split_of(problem_id: str) -> str:
    """'heldout' for about 40% of the records (fixed by their problem_id), else 'tuning'."""
    return "heldout" if _h(HOLDOUT_SALT + problem_id) % 10 < HOLDOUT_TENTHS else "tuning"


def reference_kind(item: Item) -> str:
    """'letters' (a choice answered by option letters) or 'value' (anything else)."""
    return "letters" if gold_letters(item.gold) is not None else "value"


def _reference_key(item: Item) -> str:
    letters = gold_letters(item.gold)
    if letters is not None:
        return "".join(sorted(letters))
    return re.sub(r"[\s$]", "", item.gold)


@dataclass(frozen=True)
class Case:
    split: str          # tuning | heldout
    kind: str           # own (must grade right) | other (must grade wrong)
    item: Item          # the question graded
    source: str         # problem_id whose solution is the response
    response: str
    expected: bool


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


def measure(grade: Callable[[Item, str], bool | None], chosen: Sequence[Case]
            ) -> dict[tuple[str, str], Tally]:
    """Tallies per (split, kind) and per (split, 'all'): cases, decided, decided as expected."""
    tallies: dict[tuple[str, str], Tally] = {}
    for case in chosen:
        verdict = grade(case.item, case.response)
        for key in ((case.split, case.kind), (case.split, "all")):
            t = tallies.setdefault(key, Tally())
            t.n += 1
            if verdict is not None:
                t.decided += 1
                t.agreed += verdict is case.expected
    return tallies
