"""The chance baseline: a uniform pick among a question's option letters, in the paper's template.

Seeded per item (not per call order), so a resumed or re-sharded run gives the same answers.
"""
from __future__ import annotations

import random

from tasks.items import Completion, Request


class RandomBaseline:
    kind = "baseline"
    model = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def complete(self, request: Request) -> Completion:
        if not request.choices:
            return Completion(text=None, status="refused",
                              error="baseline:random only answers multiple-choice questions")
        rng = random.Random(f"{self.seed}:{request.item_id}")
        letter = rng.choice(request.choices)
        text = (f"<Thought process>: <<a uniform guess among {len(request.choices)} options>> "
                f"<Answer>: <<{letter}>>")
        return Completion(text=text, latency_s=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0)

    async def aclose(self) -> None:
        return None
