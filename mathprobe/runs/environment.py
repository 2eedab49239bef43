"""The environment's MATHPROBE_* settings checked before anything starts, as preflight checks a
command's options: each against its declaration (mathprobe.settings), then what only its reader
can say. Preflight calls it first (`preflight.check_environment`), the command line before any
command and every flow at its start, so a setting cannot skip it."""
from __future__ import annotations

import os
from collections.abc import Mapping

from mathprobe import settings
from mathprobe.backends import registry as backends
from mathprobe.errors import MathprobeError
from mathprobe.store.location import parse


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Every MATHPROBE_* variable that is set, checked as its flag would be (its declaration in
    mathprobe.settings, then what only its reader can say: each entry of a price table or a
    table of reasoning models, the backend kind of MATHPROBE_MAX_CONCURRENCY_<KIND>, a DuckLake
    spelling); a name that is no setting but a near miss of one is refused, naming it."""
    from mathprobe.backends import prices, reasoning

    env = os.environ if environ is None else environ
    family = "MATHPROBE_MAX_CONCURRENCY_"
    for name in sorted(k for k in env if k.startswith(settings.PREFIX)):
        if settings.declared(name) is None:
            meant = settings.near_miss(name)
            if meant:
                raise MathprobeError(f"{name}: not a mathprobe setting; did you mean {meant}?")
            continue
        value = settings.get(name, env)
        if value is None:
            continue
        if name.startswith(family) and name[len(family):].lower() not in backends.names():
            raise MathprobeError(f"{name}: no backend kind {name[len(family):].lower()!r}; "
                                 "the kinds are " + ", ".join(f"{family}{k.upper()}"
                                                              for k in backends.names()))
        if name == "MATHPROBE_PRICES":
            prices.load(str(value))
        elif name == "MATHPROBE_REASONING_MODELS":
            reasoning.load(str(value))
        elif name == "MATHPROBE_DB":
            parse(value)
