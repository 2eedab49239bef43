"""`abacus:<adder|calculator>`: a model that works out the last `A op B` of its prompt, written
outside mathprobe as a backend plug-in (docs/adding-a-backend.md).

The adder knows + and -, the calculator * as well; asked anything else, either says it cannot
work it out (an answer, graded wrong; not a failed call). Like an API backend it needs a key,
ABACUS_API_KEY (or a Prefect Secret block 'abacus-api-key'), which it never puts in an answer.
"""
from __future__ import annotations

import operator
import re

from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.backends.secrets import resolve_secret
from mathprobe.items import Completion, Request

SUM = re.compile(r"(-?\d+)\s*([-+*])\s*(-?\d+)")
KNOWS = {"adder": "+-", "calculator": "+-*"}
DO = {"+": operator.add, "-": operator.sub, "*": operator.mul}


class Abacus:
    kind = "abacus"

    def __init__(self, model: str):
        self.model = model
        self.key = resolve_secret(BACKEND.key_env)     # a missing key stops the run here
        self.calls = 0

    async def complete(self, request: Request) -> Completion:
        self.calls += 1
        sums = SUM.findall(request.prompt)
        if not sums or sums[-1][1] not in KNOWS[self.model]:
            text = "I cannot work that out."
        else:
            a, op, b = sums[-1]
            text = f"{a} {op} {b} = {DO[op](int(a), int(b))}. The answer is {DO[op](int(a), int(b))}."
        words = len(request.prompt.split())
        return Completion(text=text, latency_s=0.0, input_tokens=words,
                          output_tokens=len(text.split()), served_model=f"abacus-{self.model}")

    async def aclose(self) -> None:
        return None


def make(model: str, settings: Settings) -> Abacus:
    return Abacus(model)


BACKEND = BackendKind(name="abacus", usage="abacus:adder|calculator", help="a toy that does sums",
                      factory=make, key_env="ABACUS_API_KEY", names=tuple(KNOWS), concurrency=8)
