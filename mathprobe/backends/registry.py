"""Backends by kind, found through the `mathprobe.backends` entry point.

A backend kind is the part of `--model BACKEND:NAME` before the colon. Each kind is one module
that holds its client and a `BackendKind` describing it: the factory that builds the client
and the facts the rest of mathprobe needs without building one (the command line's help, the
checks made before Prefect starts, the API key and where to find it, the run card's endpoint,
the concurrency cap). Any installed distribution can add a kind by declaring, in its
pyproject.toml,

    [project.entry-points."mathprobe.backends"]
    mykind = "my_package.backend:BACKEND"     # a BackendKind whose `name` is 'mykind'

mathprobe's own kinds are registered the same way (pyproject.toml), so no list of kinds is
written anywhere else; docs/adding-a-backend.md walks through one.

A kind also owns its generation options (`options`: --reasoning-effort for openai:,
--thinking-budget for anthropic:) and the rules that turn a run's settings into the parameters
its model is sent (`generation`): the command line, the flows and the checks before a run read
them from here, so an option is spelled out once, where the kind that takes it is declared. A
kind with a batch API (`batches`: OpenAI's Batch API, Anthropic's Message Batches) serves
--batch (docs/batches.md). A backend module must stay
cheap to import (its SDK imported when the first client is built): the registry imports every
module to read its `BackendKind`, and `parse_spec` runs before anything else on the command line.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from mathprobe.backends import reasoning
from mathprobe.backends.reasoning import Traits
from mathprobe.errors import MathprobeError

if TYPE_CHECKING:
    from mathprobe.backends import Backend
    from mathprobe.backends.retry import RetryPolicy

GROUP = "mathprobe.backends"


@dataclass(frozen=True)
class Settings:
    """What a run gives every factory besides the model name: the seed and the run's prompt
    setting (a backend that draws at random draws from both, so chance runs of two settings, or
    of two seeds, differ), the retry and timeout policy, and the server's address for a kind
    whose server is named on the command line (`url_option`)."""
    seed: int
    policy: RetryPolicy
    url: str | None = None
    traits: Traits = reasoning.PLAIN     # what the model takes (mathprobe.backends.reasoning)
    setting: str = ""


@dataclass(frozen=True)
class Option:
    """A generation option a kind takes, e.g. openai:'s --reasoning-effort: on the command line
    as `flag`, in the eval flow's `backend_options` as `name`."""
    name: str                         # 'reasoning_effort'
    help: str
    type: type = str                  # str or int
    choices: tuple[str, ...] = ()
    least: int | None = None          # an int's least value

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> Any:
        """`value` as this option takes it, or the one-line error."""
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                try:
                    value = int(str(value))
                except ValueError:
                    raise MathprobeError(f"{self.flag} {value!r}: must be a whole number") from None
            if self.least is not None and value < self.least:
                raise MathprobeError(f"{self.flag} {value}: must be at least {self.least}")
        elif self.choices and value not in self.choices:
            raise MathprobeError(f"{self.flag} {value!r}: one of {', '.join(self.choices)}")
        return value


@dataclass(frozen=True)
class Generation:
    """What decides the parameters a run sends its model: the benchmark's (the paper's)
    `defaults`, what the user `given` (--temperature, --max-tokens), the kind's own `options`
    the user gave (--reasoning-effort, ...), and what the model takes (`traits`)."""
    spec: str                         # BACKEND:NAME as given (a #reasoning mark included)
    model: str                        # NAME, without the mark
    defaults: dict[str, Any]
    given: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    traits: Traits = reasoning.PLAIN

    def plain(self) -> dict[str, Any]:
        """The defaults, overridden by what the user gave: what a plain model is sent."""
        return {**self.defaults, **self.given}


@dataclass(frozen=True)
class BackendKind:
    """One backend kind, as the rest of mathprobe sees it without building a client."""
    name: str                    # the prefix in BACKEND:NAME
    usage: str                   # how --model names it, e.g. 'openai:MODEL'
    help: str                    # what it is, a few words for the command line's help
    factory: Callable[[str, Settings], Backend]   # (NAME, settings) -> the client
    key_env: str | None = None   # its API key: this variable, else the Prefect Secret block
    #                              named after it (mathprobe.backends.secrets)
    endpoint_env: str | None = None   # the variable naming the server it calls (the run card)
    url_option: str | None = None     # the option naming its server (e.g. --triton-url)
    extra: str | None = None          # the pyproject extra it needs (mathprobe.extras) ...
    extra_modules: tuple[str, ...] = ()   # ... and which of that extra's modules
    slow_import: str | None = None    # the module its first client imports (an SDK: 0.3-0.8 s),
    #                                   imported ahead by the command line and the warm runner
    names: tuple[str, ...] = ()       # the only NAMEs it accepts, when it has a fixed few
    check: Callable[[str], str | None] | None = None   # NAME -> what is wrong with it, or None
    concurrency: int = 64             # requests in flight at most, by default
    network: bool = False             # it calls a server: account-wide limits apply to it
    priced: bool = False              # its calls cost money (the price table has its models)
    scores_text: bool = False         # it returns token log-probabilities of a given text
    seeded: bool = False              # its answers depend on the run's seed (--seed; the
    #                                   seed is then one of the run's parameters)
    rank: int = 100                   # its place in lists of kinds (then by name): entry points
    #                                   come in no set order; the help lists the commonest first
    options: tuple[Option, ...] = ()  # the generation options it takes (--reasoning-effort, ...)
    generation: Callable[[Generation], dict[str, Any]] | None = None   # the parameters sent
    #                                   (None: the defaults overridden by what the user gave)
    reasoning: bool = False           # it serves reasoning models: NAME#reasoning declares one
    batches: Callable[[str, Settings], Any] | None = None   # (NAME, settings) -> its batch API
    #                                   client (mathprobe.backends.batches), for --batch
    repeats: str = "temperature"      # how an item's repeated samples differ (--samples K,
    #                                   mathprobe.runs.samples): 'temperature' (drawn at the
    #                                   run's temperature: K > 1 needs one above 0), 'random'
    #                                   (each sample draws anew: the chance baseline), 'none'
    #                                   (one answer per item: K > 1 is refused)
    sample_seed: str | None = None    # the request parameter a sample's seed is sent as
    #                                   ('seed' for openai:), or None where the API takes none

    def make(self, model: str, settings: Settings) -> Backend:
        return self.factory(model, settings)


@functools.cache
def _discovered() -> dict[str, BackendKind]:
    kinds: dict[str, BackendKind] = {}
    for ep in entry_points(group=GROUP):
        if ep.name in kinds:
            continue                      # the first distribution on the path keeps a kind
        kind = ep.load()
        if not isinstance(kind, BackendKind):
            raise MathprobeError(f"entry point {GROUP}:{ep.name} = {ep.value} is not a "
                                 "mathprobe.backends.registry.BackendKind")
        if kind.name != ep.name:
            raise MathprobeError(f"entry point {GROUP}:{ep.name} loads a backend named "
                                 f"{kind.name!r}")
        kinds[ep.name] = kind
    return dict(sorted(kinds.items(), key=lambda nk: (nk[1].rank, nk[0])))


def kinds() -> list[BackendKind]:
    """Every registered kind, by `rank` then name."""
    return list(_discovered().values())


def names() -> list[str]:
    return list(_discovered())


def find(name: str) -> BackendKind | None:
    """The kind `name`, or None where it is not installed (e.g. a stored run's plug-in)."""
    return _discovered().get(name)


def refresh() -> None:
    """Forget what was found (after installing a plug-in into the running interpreter)."""
    _discovered.cache_clear()


def usages() -> str:
    return ", ".join(k.usage for k in kinds())


def models_help() -> str:
    """--model's help: every kind's usage and what it is."""
    return "BACKEND:NAME, one of: " + ", ".join(f"{k.usage} ({k.help})" for k in kinds())


def parse_spec(spec: str, option: str = "--model") -> tuple[str, str]:
    """BACKEND:NAME -> (backend, name) for a backend that exists; a MathprobeError otherwise.
    A `#reasoning` mark after NAME (a kind that serves reasoning models) is not part of the
    name. Builds no client, so it is instant (the command line checks --model before anything)."""
    kind, sep, model = spec.partition(":")
    if not sep or not kind or not model:
        raise MathprobeError(f"{option} {spec!r}: expected BACKEND:NAME, one of {usages()}")
    found = find(kind)
    if found is None:
        raise MathprobeError(f"{option} {spec!r}: unknown backend {kind!r} "
                             f"(available: {usages()})")
    if reasoning.marked(model):
        if not found.reasoning:
            takers = ", ".join(k.usage for k in kinds() if k.reasoning)
            raise MathprobeError(f"{option} {spec!r}: {kind}: serves no reasoning models "
                                 f"({reasoning.MARK} is for {takers or 'no installed backend'})")
        model = reasoning.unmarked(model)
        if not model:
            raise MathprobeError(f"{option} {spec!r}: expected BACKEND:NAME, one of {usages()}")
    if found.names and model not in found.names:
        only = ", ".join(f"{kind}:{n}" for n in found.names)
        raise MathprobeError(f"{option} {spec!r}: the only {kind} is {only}"
                             if len(found.names) == 1 else
                             f"{option} {spec!r}: {kind} has {only}")
    return kind, model


def kind_of(spec: str, option: str = "--model") -> BackendKind:
    kind, _ = parse_spec(spec, option)
    return _discovered()[kind]


def traits_of(spec: str) -> Traits:
    """What the model of BACKEND:NAME takes (the table of reasoning models, or its mark)."""
    kind, _ = parse_spec(spec)
    return reasoning.traits(kind, spec.partition(":")[2])


def all_options() -> dict[str, Option]:
    """Every kind's options by name (the first kind to declare a name keeps it)."""
    out: dict[str, Option] = {}
    for k in kinds():
        for o in k.options:
            out.setdefault(o.name, o)
    return out


def takers(name: str) -> list[BackendKind]:
    return [k for k in kinds() if any(o.name == name for o in k.options)]


DEFAULT_SEED = 0          # a seeded kind's seed when --seed is not given


def generation_params(spec: str, defaults: Mapping[str, Any], given: dict[str, Any] | None = None,
                      options: dict[str, Any] | None = None, option: str = "--model",
                      seed: int | None = None) -> dict[str, Any]:
    """The parameters a run sends BACKEND:NAME: the kind's `generation` rules applied to the
    benchmark's `defaults`, what the user `given` and the kind's `options` the user gave (None
    values: not given); for a seeded kind also `seed` (default DEFAULT_SEED): recorded with the
    run as one of its parameters, so the same run id never mixes two seeds' answers. An option
    of another kind, a value the option does not take, or a seed for a kind that draws none is
    the one-line error."""
    kind, model = parse_spec(spec, option)
    found = _discovered()[kind]
    if seed is not None and not found.seeded:
        seeded = ", ".join(k.usage for k in kinds() if k.seeded)
        raise MathprobeError(f"--seed {seed}: {spec} draws nothing at random of mathprobe's "
                             f"(the seed is for {seeded or 'seeded backends'})")
    own = {o.name: o for o in found.options}
    checked: dict[str, Any] = {}
    for name, value in (options or {}).items():
        if value is None:
            continue
        if name not in own:
            flag = "--" + name.replace("_", "-")
            others = takers(name)
            if not others:
                raise MathprobeError(f"{flag}: no backend takes it (backend options: "
                                     f"{', '.join(all_options()) or 'none'})")
            raise MathprobeError(f"{flag}: an option of {', '.join(k.usage for k in others)} "
                                 f"models, not of {spec}")
        checked[name] = own[name].check(value)
    gen = Generation(spec=spec, model=model, defaults=dict(defaults),
                     given={k: v for k, v in (given or {}).items() if v is not None},
                     options=checked, traits=reasoning.traits(kind, spec.partition(":")[2]))
    params = found.generation(gen) if found.generation is not None else gen.plain()
    return {**params, "seed": DEFAULT_SEED if seed is None else seed} if found.seeded else params


def slow_imports() -> dict[str, str]:
    """Kind -> the module worth importing ahead of its first use (its SDK, else its own)."""
    return {k.name: k.slow_import or _module_of(k) for k in kinds()}


def _module_of(kind: BackendKind) -> str:
    return getattr(kind.factory, "__module__", None) or __name__


def network_kinds() -> tuple[str, ...]:
    return tuple(k.name for k in kinds() if k.network)

