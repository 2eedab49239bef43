"""The benchmark adapters by name: `tasks/<name>.py`, one module per benchmark, all with the
same small surface:

NAME, SETTINGS, DEFAULT_SETTING, DEFAULT_PARAMS, GRADERS (the first is the default),
load(data_dir) -> Dataset (items, by_id(), fingerprint), select(items, limit),
build_prompt(item, setting), grade(grader, item, response) -> (extracted, correct),
read_official_results(path, dataset) -> [(item, response)], reference_tables(dataset).

Its paper-style report lives beside it in `tasks/report_<name>.py` (build, render).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

from tasks.errors import MathprobeError

BENCHMARKS = ("wemath", "conceptmath", "cmmath")


def available() -> list[str]:
    return [b for b in BENCHMARKS if importlib.util.find_spec(f"tasks.{b}") is not None]


def get_adapter(benchmark: str) -> ModuleType:
    if benchmark not in available():
        raise MathprobeError(f"unknown benchmark {benchmark!r}; available: "
                             f"{', '.join(available())}")
    return importlib.import_module(f"tasks.{benchmark}")


def resolve_data_dir(data_dir: str | Path | None) -> Path:
    """--data-dir, else $MATHPROBE_DATA_DIR: the folder holding wemath/, conceptmath/, cmmath/."""
    chosen = data_dir or os.environ.get("MATHPROBE_DATA_DIR")
    if not chosen:
        raise MathprobeError("no data directory: pass --data-dir DIR or set MATHPROBE_DATA_DIR "
                             "(the folder that holds wemath/, conceptmath/, cmmath/)")
    path = Path(chosen).expanduser().resolve()
    if not path.is_dir():
        raise MathprobeError(f"data directory {path} does not exist")
    return path
