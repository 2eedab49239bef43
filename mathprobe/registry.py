"""Benchmarks by name, found through the `mathprobe.benchmarks` entry point.

Any installed distribution can add a benchmark by declaring, in its pyproject.toml,

    [project.entry-points."mathprobe.benchmarks"]
    mybench = "my_package:MyBench"        # a `mathprobe.contract.Benchmark` subclass (or instance)

mathprobe's own three are registered the same way, so the core never names a benchmark.
"""
from __future__ import annotations

import functools
import os
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from mathprobe.contract import Benchmark
from mathprobe.errors import MathprobeError

GROUP = "mathprobe.benchmarks"


@functools.cache
def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def names() -> list[str]:
    """The registered benchmarks, sorted by name (the order their SQL is applied in)."""
    return sorted(_entry_points())


@functools.cache
def get(name: str) -> Benchmark:
    """The benchmark registered as `name`; a MathprobeError naming the available ones if none."""
    ep = _entry_points().get(name)
    if ep is None:
        raise MathprobeError(f"unknown benchmark {name!r}; available: {', '.join(names()) or 'none'}"
                             f" (benchmarks register under the {GROUP!r} entry point)")
    target = ep.load()
    bench = target() if isinstance(target, type) else target
    if not isinstance(bench, Benchmark):
        raise MathprobeError(f"entry point {GROUP}:{name} = {ep.value} is not a "
                             "mathprobe.contract.Benchmark (subclass or instance)")
    if bench.name != name:
        raise MathprobeError(f"entry point {GROUP}:{name} loads a benchmark named {bench.name!r}")
    return bench


def all_benchmarks() -> list[Benchmark]:
    return [get(n) for n in names()]


def refresh() -> None:
    """Forget what was found (after installing a plug-in into the running interpreter)."""
    _entry_points.cache_clear()
    get.cache_clear()


def with_probe_family(family: str, benchmark: str | None = None) -> Benchmark:
    """The benchmark that offers probes of `family` (`benchmark` if given, else the only one)."""
    offering = [b for b in all_benchmarks() if b.probe_family(family)]
    if benchmark is not None:
        bench = get(benchmark)
        if not bench.probe_family(family):
            raise MathprobeError(f"--benchmark {bench.name!r}: no {family} probe; benchmarks "
                                 f"with one: {', '.join(b.name for b in offering) or 'none'}")
        return bench
    if len(offering) != 1:
        raise MathprobeError(f"{len(offering)} benchmarks offer a {family} probe"
                             f" ({', '.join(b.name for b in offering) or 'none'}): name one with --benchmark")
    return offering[0]


def with_judge_audit(benchmark: str | None = None) -> Benchmark:
    """The benchmark whose judge can be audited (`benchmark` if given, else the only one)."""
    offering = [b for b in all_benchmarks() if b.judge is not None and b.judge.has_audit]
    if benchmark:
        bench = get(benchmark)
        if bench not in offering:
            raise MathprobeError(f"--benchmark {bench.name!r}: no judge audit; benchmarks with "
                                 f"one: {', '.join(b.name for b in offering) or 'none'}")
        return bench
    if len(offering) != 1:
        raise MathprobeError(f"{len(offering)} benchmarks have a judge audit"
                             f" ({', '.join(b.name for b in offering) or 'none'}): name one "
                             "with --benchmark")
    return offering[0]


def resolve_data_dir(data_dir: str | Path | None) -> Path:
    """--data-dir, else $MATHPROBE_DATA_DIR: the folder holding one folder per benchmark."""
    chosen = data_dir or os.environ.get("MATHPROBE_DATA_DIR")
    if not chosen:
        raise MathprobeError("no data directory: pass --data-dir DIR or set MATHPROBE_DATA_DIR "
                             f"(the folder that holds {', '.join(f'{n}/' for n in names())})")
    path = Path(chosen).expanduser().resolve()
    if not path.is_dir():
        source = "--data-dir" if data_dir else "MATHPROBE_DATA_DIR"
        raise MathprobeError(f"data directory {path} (from {source}) does not exist")
    return path
