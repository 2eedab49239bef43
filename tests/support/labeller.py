"""A scripted labeller behind the loopback OpenAI server (tests/support/fake_api.py): it answers
the labelling prompt of `mathprobe errors` the way a labeller model would, with an error type
decided by the problem it is shown, and with no readable type for some problems, so a test can
tell from the data alone which label each answer must get and which must get none."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

MARK = "Error types ("        # only the labelling prompt says this


def between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    j = text.find(end, i + len(start))
    return text[i + len(start):j] if i >= 0 and j >= 0 else ""


def problem_of(prompt: str) -> str:
    """The problem as the labelling prompt shows it."""
    return between(prompt, "Problem:\n", "\n\nReference answer:")


class Labeller:
    """reply(payload, prompt) for FakeAPI: None (the default reply) for anything but a
    labelling prompt; for one, 'First error: "..."', a reason and 'Error type: <type>', the
    type `types[hash(problem) % len(types)]`, except that every problem whose hash is 0 modulo
    `unreadable_every` gets a reply without a readable type (None: every reply readable).
    `asked` holds the labelling prompts received."""

    def __init__(self, types: list[str], unreadable_every: int | None = 5,
                 bias: dict[str, str] | None = None):
        self.types, self.unreadable_every = list(types), unreadable_every
        self.bias = bias or {}            # a text in the response -> the type it always gets
        self.asked: list[str] = []
        self.payloads: list[dict] = []

    @staticmethod
    def _h(problem: str) -> int:
        return int(hashlib.sha256(problem.encode()).hexdigest(), 16)

    def expected(self, problem: str, response: str = "") -> str | None:
        """The type this labeller gives an answer to `problem`; None: an unreadable reply."""
        for text, kind in self.bias.items():
            if text in response:
                return kind
        h = self._h(problem)
        if self.unreadable_every and h % self.unreadable_every == 0:
            return None
        return self.types[h % len(self.types)]

    def __call__(self, payload: dict, prompt: str) -> str | None:
        if MARK not in prompt:
            return None
        self.asked.append(prompt)
        self.payloads.append(payload)
        kind = self.expected(problem_of(prompt), between(prompt, "<<<\n", "\n>>>"))
        if kind is None:
            return "Hard to say; it looks like a confusion of some sort.\nError type: Confusion"
        return (f'First error: "the step that goes wrong"\nReason: it misapplies the concept.\n'
                f"**Error type:** {kind}")


def wemath_subset(data_dir: Path, out: Path, every: int = 13) -> list[dict]:
    """Every `every`-th problem of WE-MATH's reference response set (all its questions), written
    to `out` (a temporary file, in the authors' format): about 40 problems, 130 questions."""
    rows = json.loads((data_dir / "wemath" / "reference_cases" / "v1_responses.json").read_text())
    ids = list(dict.fromkeys(r["ID"] for r in rows))[::every]
    keep = [r for r in rows if r["ID"] in set(ids)]
    out.write_text(json.dumps(keep, ensure_ascii=False))
    return keep
