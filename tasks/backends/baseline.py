"""The chance baseline: a uniform pick among a question's option letters, in the paper's template
(WE-MATH's), a random whole number 0..100 for a free-form question, and a random order when
asked to rank options (concept classification).

Seeded per item (not per call order), so a resumed or re-sharded run gives the same answers.
"""
from __future__ import annotations

import random

from mathprobe.tasks.items import Completion, Request


class RandomBaseline:
    kind = "baseline"
    model = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def complete(self, request: Request) -> Completion:
        rng = random.Random(f"{self.seed}:{request.item_id}")
        if request.choices and any(len(c) > 1 for c in request.choices):   # options to rank
            order = rng.sample(range(1, len(request.choices) + 1), len(request.choices))
            text = ", ".join(map(str, order))
        elif request.choices:
            letter = rng.choice(request.choices)
            text = (f"<Thought process>: <<a uniform guess among {len(request.choices)} "
                    f"options>> <Answer>: <<{letter}>>")
        else:   # a free-form question: a small whole number, the commonest kind of answer
            text = f"A guess. The answer is {rng.randint(0, 100)}."
        return Completion(text=text, latency_s=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0)

    async def aclose(self) -> None:
        return None
