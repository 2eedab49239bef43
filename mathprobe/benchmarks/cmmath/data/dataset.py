"""CMMaTH's data (Li et al. 2024): cmmath.json records, loaded and checked one by one (labels,
grade, visual subject, knowledge points, options), and the strata a run with --limit samples
over."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mathprobe import contract
from mathprobe.benchmarks.cmmath.data.knowledge_points import (
    PointSyntaxError,
    item_points,
    official_point,
)
from mathprobe.benchmarks.cmmath.data.options import gold_letters, option_letters
from mathprobe.data_cache import per_data_folder
from mathprobe.errors import DataError
from mathprobe.files import read_json
from mathprobe.items import Item, given

NAME = "cmmath"


# Bumped whenever parsing changes what `load` produces, so stored items and reference tables
# are reloaded (it is part of the dataset fingerprint).
PARSER_VERSION = "2"


ANSWER_TYPES = ("choice", "free_form")


GRADE_GROUPS = {1: "elementary", 2: "junior", 3: "senior"}


@dataclass(frozen=True)
class CmmathItem(Item):
    """An Item plus where its image files were looked for (`<data_dir>/cmmath/images/<file>`)
    and the data directory its prompts' published texts come from.

    `image_path` stays None: which image a request carries depends on the setting
    (`request_image`), and the text modes must never carry one.
    """
    image_files: tuple[str, ...] = ()
    # where its prompts' published texts are read from (<data_dir>/cmmath/prompts_published.json)
    data_dir: str = field(default="", compare=False)


@dataclass(frozen=True)
class Dataset(contract.Dataset):
    points: tuple[tuple[str, str, str, str | None], ...] = ()   # (item_id, point, path, source)
    data_dir: str = ""


def _grade_group_of(grade_id: int) -> int:
    return 1 if grade_id <= 6 else 2 if grade_id <= 9 else 3


def parse_record(row: Any, *, path: Path, n: int, data_dir: Path) -> tuple[CmmathItem, list]:
    """One cmmath.json record -> (item, [(point, path, source)]), or a DataError naming the
    file, the row and the field."""
    if not isinstance(row, dict):
        raise DataError(path, "expected a JSON object", row=n)
    pid = row.get("problem_id")
    if not isinstance(pid, str) or not pid.strip():
        raise DataError(path, "missing or not a non-empty string", row=n, field="problem_id")

    def bad(field: str, message: str) -> DataError:
        return DataError(path, message, row=n, field=field, item=pid)

    for f in ("question", "answer"):
        if not isinstance(row.get(f), str) or not row[f].strip():
            raise bad(f, "missing or not a non-empty string")
    if row.get("answer_type") not in ANSWER_TYPES:
        raise bad("answer_type", f"expected one of {ANSWER_TYPES}, got {row.get('answer_type')!r}")
    grade_id, group = row.get("grade_id"), row.get("grade_group")
    if not isinstance(grade_id, int) or isinstance(grade_id, bool) or not 1 <= grade_id <= 12:
        raise bad("grade_id", f"expected an integer 1..12, got {grade_id!r}")
    if group not in GRADE_GROUPS or isinstance(group, bool):
        raise bad("grade_group", f"expected 1, 2 or 3, got {group!r}")
    if group != _grade_group_of(grade_id):
        raise bad("grade_group", f"grade_group {group} does not match grade_id {grade_id} "
                  "(1-6 elementary = 1, 7-9 junior = 2, 10-12 senior = 3)")
    meta = row.get("metadata")
    if not isinstance(meta, dict):
        raise bad("metadata", "missing or not a JSON object")
    category = meta.get("multimodal-category")
    if not isinstance(category, str) or not category.strip():
        raise DataError(path, "missing or not a non-empty string", row=n,
                        field="metadata.multimodal-category", item=pid)
    for f in ("knowledge_point", "skill", "ocr"):
        if row.get(f) is not None and not isinstance(row[f], str):
            raise bad(f, f"expected a string or null, got {type(row[f]).__name__}")
    images = row.get("image", [])
    if images is None:
        images = []
    if not isinstance(images, list) or not all(isinstance(i, str) and i for i in images):
        raise bad("image", "expected a list of file names")
    try:
        points, source = item_points(row)
    except PointSyntaxError as exc:
        field = "knowledge_point" if (row.get("knowledge_point") or "").strip() else "skill"
        raise bad(field, str(exc)) from None
    choices = option_letters(row["question"]) if row["answer_type"] == "choice" else ()
    gold = gold_letters(row["answer"]) if choices else None
    if gold is not None and not gold <= set(choices):     # a row no answer could ever match
        raise bad("answer", f"answer {row['answer'].strip()!r} is not among the options "
                  f"({', '.join(choices)}) of the question")
    image_dir = Path(data_dir) / NAME / "images"
    item = CmmathItem(
        benchmark=NAME, item_id=pid, question=row["question"], gold=row["answer"].strip(),
        group_id=str(group), part=row["answer_type"],
        concept=row.get("knowledge_point") or row.get("skill"), choices=choices,
        image_path=None, payload=row,
        image_files=tuple(str(image_dir / i) for i in images), data_dir=str(data_dir),
    )
    return item, [(leaf, p, source) for leaf, p in points]


@per_data_folder(NAME)
def load(data_dir: str | Path) -> Dataset:
    data_dir = Path(data_dir)
    path = data_dir / NAME / "cmmath.json"
    rows = read_json(path)
    if isinstance(rows, dict):
        rows = rows.get("data", rows)
    if not isinstance(rows, list):
        raise DataError(path, "expected a JSON array of records")
    fingerprint = contract.fingerprint(path, extra=PARSER_VERSION)
    items: list[CmmathItem] = []
    points: list[tuple[str, str, str, str]] = []
    first_row: dict[str, int] = {}
    for n, row in enumerate(rows, start=1):
        item, pts = parse_record(row, path=path, n=n, data_dir=data_dir)
        if item.item_id in first_row:
            raise DataError(path, f"problem_id also used by row {first_row[item.item_id]}",
                            row=n, field="problem_id", item=item.item_id)
        first_row[item.item_id] = n
        items.append(item)
        points += [(item.item_id, leaf, p, source) for leaf, p, source in pts]
    return Dataset(items=tuple(items), points=tuple(points), fingerprint=fingerprint,
                   data_dir=str(data_dir))


STRATA = ("grade group", "visual subject")


def strata(item: Item) -> tuple[str, ...]:
    """A question's stratum: its grade group and its visual subject."""
    return (given(item.group_id, "group_id"), item.payload["metadata"]["multimodal-category"])


def reference_tables(dataset: Dataset, items_table: str = "cmmath_items",
                     points_table: str = "cmmath_item_points") -> dict[str, dict[str, tuple[str, list]]]:
    """Tables the views join against: per-question labels (with the raw answer and the
    authors' one SSR point, for their figures) and the question -> leaf points map. (The same
    columns, under other table names, for problems an imported file defines: `official_results`.)"""
    its = dataset.items
    return {
        items_table: {
            "item_id": ("VARCHAR", [i.item_id for i in its]),
            "answer_type": ("VARCHAR", [i.payload["answer_type"] for i in its]),
            "grade_id": ("INTEGER", [i.payload["grade_id"] for i in its]),
            "grade_group": ("INTEGER", [i.payload["grade_group"] for i in its]),
            "category": ("VARCHAR", [i.payload["metadata"]["multimodal-category"] for i in its]),
            "answer": ("VARCHAR", [i.payload["answer"] for i in its]),
            "official_point": ("VARCHAR", [official_point(i.payload.get("knowledge_point"))
                                           for i in its]),
        },
        points_table: {
            "item_id": ("VARCHAR", [p[0] for p in dataset.points]),
            "point": ("VARCHAR", [p[1] for p in dataset.points]),
            "path": ("VARCHAR", [p[2] for p in dataset.points]),
            "source": ("VARCHAR", [p[3] for p in dataset.points]),
        },
    }
