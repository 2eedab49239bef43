"""What a prompt setting needs of the data, checked for every question a run will ask before
anything starts (`mathprobe.runs.preflight.check_eval`).

A setting can need more than the rows the loader validates: CMMaTH's `image` modes need each
question's image file, which the published sample does not ship. Found only when the shard that
asks the first such question built its request, that error came 30 s into the run, after
Prefect had started, and left the run `running` in the store. Building each question's prompt and
finding its image here is what the run itself does first (`mathprobe.runs.asking.build_request`),
without reading the images: a few milliseconds per thousand questions.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mathprobe.contract import Benchmark
from mathprobe.errors import DataError, MathprobeError
from mathprobe.items import Item


def check(bench: Benchmark, items: Sequence[Item], setting: str) -> None:
    """Raise the one line for the questions of `items` that cannot be asked under `setting`:
    how many, and the benchmark's own account of the first (its file, item and field)."""
    first: str | None = None
    bad = 0
    for item in items:
        problem = _problem(bench, item, setting)
        if problem is not None:
            bad += 1
            first = first or problem
    if first is not None:
        raise MathprobeError(f"--setting {setting}: {bad} of {len(items)} question(s) of this run "
                             f"cannot be asked; the first: {first}")


def _problem(bench: Benchmark, item: Item, setting: str) -> str | None:
    try:
        bench.prompt(item, setting)
        image = bench.request_image(item, setting)
    except DataError as exc:
        return str(exc)
    if image is not None and not Path(image).is_file():
        return f"{image}: the image question {item.item_id} sends is not there"
    return None
