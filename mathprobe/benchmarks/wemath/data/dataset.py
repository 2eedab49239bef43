"""WE-MATH's data: testmini.json and the knowledge tree, loaded and checked row by row, and the
strata a run with --limit samples over (whole problems, by steps and category)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mathprobe import contract
from mathprobe.data_cache import per_data_folder
from mathprobe.errors import DataError
from mathprobe.files import read_json
from mathprobe.items import Item, given
from mathprobe.options import LETTERS, sequential_letters

NAME = "wemath"

REQUIRED = ("ID", "key", "question", "option", "answer", "image_path", "knowledge concept")
KEY_RE = re.compile(r"^(2steps_[12]|3steps_[123]|[23]steps_multi)$")
OPTION_LETTER_RE = re.compile(r"(?:^|[;\s])([A-H])[.．]")


@dataclass(frozen=True)
class WemathItem(Item):
    """An Item plus its problem's knowledge category (the `root2` of the problem's first
    concept), the stratum --limit samples over besides the steps; not stored."""
    category: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Dataset(contract.Dataset):
    knowledge: tuple[dict[str, Any], ...] = ()   # the 67 leaves of knowledge_structure_nodes.json


def item_id(row: dict[str, Any]) -> str:
    return f"{row['ID']}/{row['key']}"


def option_letters(option: str) -> tuple[str, ...]:
    """Option letters ('A. 30°;B. 60°; ...' -> ('A', 'B', ...)); a stray 'G.' inside an
    option's text (e.g. 'triangle BE;G.') is not taken for an option."""
    return sequential_letters(OPTION_LETTER_RE.findall(option))


def load_knowledge(data_dir: Path) -> tuple[dict[str, Any], ...]:
    path = Path(data_dir) / NAME / "knowledge_structure_nodes.json"
    rows = read_json(path)
    if not isinstance(rows, list):
        raise DataError(path, "expected a JSON array of knowledge nodes")
    leaves = []
    for n, row in enumerate(rows, start=1):
        for f in ("root1", "root2", "full node"):
            if not isinstance(row.get(f), str) or not row[f]:
                raise DataError(path, "missing or empty", row=n, field=f)
        leaves.append({**row, "leaf": row["full node"].split("_")[-1]})
    return tuple(leaves)


def parse_row(row: Any, *, path: Path, n: int, data_dir: Path, leaves: set[str],
              check_image: bool = True) -> WemathItem:
    """One testmini row -> Item, or a DataError naming the row and field."""
    if not isinstance(row, dict):
        raise DataError(path, "expected a JSON object", row=n)
    ident = f"{row.get('ID')}/{row.get('key')}" if "ID" in row and "key" in row else None
    for f in REQUIRED:
        if not isinstance(row.get(f), str) or not row[f].strip():
            raise DataError(path, "missing or not a non-empty string", row=n, field=f, item=ident)
    if not KEY_RE.match(row["key"]):
        raise DataError(path, f"unknown question key {row['key']!r} (expected 2steps_1, "
                        "2steps_2, 2steps_multi, 3steps_1..3steps_3 or 3steps_multi)",
                        row=n, field="key", item=ident)
    choices = option_letters(row["option"])
    if len(choices) < 2:
        raise DataError(path, f"no option letters found in {row['option']!r}", row=n,
                        field="option", item=ident)
    if row["answer"] not in LETTERS:
        raise DataError(path, f"answer {row['answer']!r} is not an option letter", row=n,
                        field="answer", item=ident)
    if row["answer"] not in choices:          # a row no answer could ever match
        raise DataError(path, f"answer {row['answer']!r} is not among the options "
                        f"({', '.join(choices)}) of {row['option']!r}", row=n, field="answer",
                        item=ident)
    concepts = row["knowledge concept"].split(";")
    unknown = [c for c in concepts if c not in leaves]
    if unknown:
        raise DataError(path, f"concept(s) not in knowledge_structure_nodes.json: {unknown}",
                        row=n, field="knowledge concept", item=ident)
    image = Path(data_dir) / NAME / row["image_path"]
    if check_image and not image.is_file():
        raise DataError(path, f"image not found: {image}", row=n, field="image_path", item=ident)
    return WemathItem(
        benchmark=NAME, item_id=f"{row['ID']}/{row['key']}", question=row["question"],
        gold=row["answer"], group_id=row["ID"], part=row["key"],
        concept=row["knowledge concept"], choices=choices, image_path=str(image), payload=row,
    )


def _check_structure(items: Sequence[Item], path: Path) -> None:
    """Every problem needs its one-step questions and its composite question."""
    parts: dict[str, set[str]] = {}
    for it in items:
        problem, part = given(it.group_id, "group_id"), given(it.part, "part")
        if part in parts.setdefault(problem, set()):
            raise DataError(path, f"problem {problem} has question {part} twice",
                            field="key", item=it.item_id)
        parts[problem].add(part)
    for pid, keys in parts.items():
        steps = next(iter(keys))[0]
        want = {f"{steps}steps_{k}" for k in [*range(1, int(steps) + 1), "multi"]}
        if keys != want:
            raise DataError(path, f"problem {pid} has questions {sorted(keys)}, expected "
                            f"{sorted(want)}", field="key", item=pid)


@per_data_folder(NAME)
def load(data_dir: str | Path) -> Dataset:
    data_dir = Path(data_dir)
    knowledge = load_knowledge(data_dir)
    leaves = {k["leaf"] for k in knowledge}
    path = data_dir / NAME / "testmini.json"
    rows = read_json(path)
    fingerprint = contract.fingerprint(path, data_dir / NAME / "knowledge_structure_nodes.json")
    if not isinstance(rows, list):
        raise DataError(path, "expected a JSON array of questions")
    items = [parse_row(r, path=path, n=n, data_dir=data_dir, leaves=leaves)
             for n, r in enumerate(rows, start=1)]
    _check_structure(items, path)
    root2 = {k["leaf"]: k["root2"] for k in knowledge}
    first = {it.group_id: given(it.concept, "concept").split(";")[0] for it in items
             if given(it.part, "part").endswith("multi")}
    items = [replace(it, category=root2[first[it.group_id]]) for it in items]
    return Dataset(items=tuple(items), knowledge=knowledge, fingerprint=fingerprint)


STRATA = ("steps", "category")


def strata(item: Item) -> tuple[str, ...]:
    """A problem's stratum: its steps (2 or 3) and its knowledge category."""
    return (given(item.part, "part").split("_")[0], getattr(item, "category", None) or "")


def sample_unit(item: Item) -> str:
    """A problem is never split, so the four-dimensional metric stays defined."""
    return given(item.group_id, "group_id")


def reference_tables(dataset: Dataset) -> dict[str, dict[str, tuple[str, list]]]:
    """Tables the views join against: the knowledge tree (leaf -> root2 category)."""
    cols = ("leaf", "root0", "root1", "root2", "root3", "root4")
    columns = {c: ("VARCHAR", [k.get(c) for k in dataset.knowledge]) for c in cols}
    columns["full_node"] = ("VARCHAR", [k["full node"] for k in dataset.knowledge])
    return {"wemath_knowledge": columns}


