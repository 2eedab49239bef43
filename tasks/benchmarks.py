"""The benchmark adapters by name. An adapter is a module with the same small surface:

NAME, SETTINGS, DEFAULT_SETTING, DEFAULT_PARAMS, GRADERS, load(data_dir) -> Dataset,
select(items, limit), build_prompt(item, setting), grade(grader, item, response),
read_official_results(path, dataset), reference_tables(dataset).
"""
from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

from tasks import wemath
from tasks.errors import MathprobeError

ADAPTERS: dict[str, ModuleType] = {wemath.NAME: wemath}


def get_adapter(benchmark: str) -> ModuleType:
    try:
        return ADAPTERS[benchmark]
    except KeyError:
        raise MathprobeError(f"unknown benchmark {benchmark!r}; available: "
                             f"{', '.join(sorted(ADAPTERS))}") from None


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
