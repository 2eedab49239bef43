"""The chance baseline: a uniform guess, written in the asking benchmark's own answer format.

A benchmark says how a chance answer to an item looks (`Benchmark.chance_answer`: a template
and the equally likely answers, e.g. WE-MATH's '<Answer>: <<B>>' among the options, ConceptMath's
'Therefore, the answer is 57.' among 0..100, CMMaTH's '所以最终的答案为C。'), which the request
carries (`Request.chance`); the baseline picks one. Where a benchmark says nothing: a letter
among the question's options, or a whole number 0..100, as 'The answer is X.'. Asked to rank
options (concept classification), a random order.

Seeded per run seed, prompt setting, item and sample (not per call order): a resumed or
re-sharded run gives the same answers, the same seed the same answers, each of an item's samples
(--samples K) is a guess of its own, and two settings' or two seeds' chance runs are two
independent draws (one seed for every setting drew the same letters for each question, so every
difference between two chance runs read +0.00).
"""
from __future__ import annotations

import random

from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.items import Completion, Request


class RandomBaseline:
    kind = "baseline"
    model = "random"

    def __init__(self, seed: int = 0, setting: str = ""):
        self.seed, self.setting = seed, setting

    async def complete(self, request: Request) -> Completion:
        # each sample of an item a guess of its own (sample 0 as before samples existed)
        rng = random.Random(f"{self.seed}:{self.setting}:{request.item_id}"
                            + (f":{request.sample}" if request.sample else ""))
        if request.choices and any(len(c) > 1 for c in request.choices):   # options to rank
            order = rng.sample(range(1, len(request.choices) + 1), len(request.choices))
            text = ", ".join(map(str, order))
        elif request.chance is not None and request.chance.choices:
            text = request.chance.text(rng.choice(request.chance.choices))
        elif request.choices:
            text = f"The answer is {rng.choice(request.choices)}."
        else:   # a free-form question: a small whole number, the commonest kind of answer
            text = f"A guess. The answer is {rng.randint(0, 100)}."
        return Completion(text=text, latency_s=0.0, input_tokens=0, output_tokens=0, cost_usd=0.0)

    async def aclose(self) -> None:
        return None


def make(model: str, settings: Settings) -> RandomBaseline:
    return RandomBaseline(seed=settings.seed, setting=settings.setting)


BACKEND = BackendKind(name="baseline", usage="baseline:random", help="offline chance baseline",
                      factory=make, names=("random",), concurrency=1024, seeded=True, rank=0,
                      repeats="random")
