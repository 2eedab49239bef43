"""WE-MATH adapter (Qiao et al. 2024): dataset, prompts and the authors' answer extraction.

Everything this project knows about WE-MATH's files lives here; the metrics live in
`sql/20_wemath_views.sql`.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tasks.errors import DataError
from tasks.files import read_json, read_records
from tasks.items import Item

NAME = "wemath"
SETTINGS = ("plain", "kca")          # the paper's prompt and knowledge-concept augmentation
DEFAULT_SETTING = "plain"
DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 1024}   # paper: greedy, 1024 new tokens
GRADERS = ("official",)

REQUIRED = ("ID", "key", "question", "option", "answer", "image_path", "knowledge concept")
KEY_RE = re.compile(r"^(2steps_[12]|3steps_[123]|[23]steps_multi)$")
OPTION_LETTER_RE = re.compile(r"(?:^|[;\s])([A-H])[.．]")
LETTERS = "ABCDEFGH"

PROMPT = (
    "Now, we require you to solve a multiple-choice math question. {kca_intro}Please briefly "
    "describe your thought process and provide the final answer(option).\n{kca_line}"
    "Question: {question}\nOption: {option}\n"
    "Regarding the format, please answer following the template below, and be sure to include "
    "two <> symbols:\n<Thought process>: <<your thought process>> <Answer>: <<your option>>"
)
KCA_INTRO = ("We will provide you with the relevant knowledge concepts of this question for your "
             "reference. ")


@dataclass(frozen=True)
class Dataset:
    items: tuple[Item, ...]
    knowledge: tuple[dict[str, Any], ...]   # the 67 leaves of knowledge_structure_nodes.json
    fingerprint: str = ""                   # content hash of the files it was loaded from

    def by_id(self) -> dict[str, Item]:
        return {i.item_id: i for i in self.items}


def item_id(row: dict[str, Any]) -> str:
    return f"{row['ID']}/{row['key']}"


def option_letters(option: str) -> tuple[str, ...]:
    """Option letters ('A. 30°;B. 60°; ...' -> ('A', 'B', ...)).

    Letters must come in alphabetical sequence, so a stray 'G.' inside an option's text (e.g.
    'triangle BE;G.') is not taken for an option.
    """
    seen: list[str] = []
    for letter in OPTION_LETTER_RE.findall(option):
        if len(seen) < len(LETTERS) and letter == LETTERS[len(seen)]:
            seen.append(letter)
    return tuple(seen)


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
              check_image: bool = True) -> Item:
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
    concepts = row["knowledge concept"].split(";")
    unknown = [c for c in concepts if c not in leaves]
    if unknown:
        raise DataError(path, f"concept(s) not in knowledge_structure_nodes.json: {unknown}",
                        row=n, field="knowledge concept", item=ident)
    image = Path(data_dir) / NAME / row["image_path"]
    if check_image and not image.is_file():
        raise DataError(path, f"image not found: {image}", row=n, field="image_path", item=ident)
    return Item(
        benchmark=NAME, item_id=ident, question=row["question"], gold=row["answer"],
        group_id=row["ID"], part=row["key"], concept=row["knowledge concept"], choices=choices,
        image_path=str(image), payload=row,
    )


def _check_structure(items: list[Item], path: Path) -> None:
    """Every problem needs its one-step questions and its composite question."""
    parts: dict[str, set[str]] = {}
    for it in items:
        if it.part in parts.setdefault(it.group_id, set()):
            raise DataError(path, f"problem {it.group_id} has question {it.part} twice",
                            field="key", item=it.item_id)
        parts[it.group_id].add(it.part)
    for pid, keys in parts.items():
        steps = next(iter(keys))[0]
        want = {f"{steps}steps_{k}" for k in [*range(1, int(steps) + 1), "multi"]}
        if keys != want:
            raise DataError(path, f"problem {pid} has questions {sorted(keys)}, expected "
                            f"{sorted(want)}", field="key", item=pid)


@lru_cache(maxsize=4)
def load(data_dir: str | Path) -> Dataset:
    data_dir = Path(data_dir)
    knowledge = load_knowledge(data_dir)
    leaves = {k["leaf"] for k in knowledge}
    path = data_dir / NAME / "testmini.json"
    rows = read_json(path)
    fingerprint = hashlib.sha256(
        path.read_bytes() + (data_dir / NAME / "knowledge_structure_nodes.json").read_bytes()
        + str(data_dir).encode()).hexdigest()
    if not isinstance(rows, list):
        raise DataError(path, "expected a JSON array of questions")
    items = [parse_row(r, path=path, n=n, data_dir=data_dir, leaves=leaves)
             for n, r in enumerate(rows, start=1)]
    _check_structure(items, path)
    return Dataset(items=tuple(items), knowledge=knowledge, fingerprint=fingerprint)


def select(items: tuple[Item, ...], limit: int | None) -> list[Item]:
    """The first problems whose questions fit in `limit` (whole problems only, never split)."""
    if limit is None:
        return list(items)
    by_problem: dict[str, list[Item]] = {}
    for it in items:
        by_problem.setdefault(it.group_id, []).append(it)
    chosen: list[Item] = []
    for group in by_problem.values():
        if chosen and len(chosen) + len(group) > limit:
            break
        chosen.extend(group)
    return chosen


def reference_tables(dataset: Dataset) -> dict[str, dict[str, tuple[str, list]]]:
    """Tables the views join against: the knowledge tree (leaf -> root2 category)."""
    cols = ("leaf", "root0", "root1", "root2", "root3", "root4")
    columns = {c: ("VARCHAR", [k.get(c) for k in dataset.knowledge]) for c in cols}
    columns["full_node"] = ("VARCHAR", [k["full node"] for k in dataset.knowledge])
    return {"wemath_knowledge": columns}


def build_prompt(item: Item, setting: str = DEFAULT_SETTING) -> str:
    row = item.payload
    if setting == "plain":
        return PROMPT.format(kca_intro="", kca_line="", question=row["question"],
                             option=row["option"])
    if setting == "kca":
        desc = row.get("knowledge concept description") or row["knowledge concept"]
        return PROMPT.format(kca_intro=KCA_INTRO, kca_line=f"Knowledge concept: {desc}\n",
                             question=row["question"], option=row["option"])
    raise ValueError(f"unknown WE-MATH setting {setting!r}; choose from {SETTINGS}")


def extract_official(response: str | None) -> str | None:
    """The authors' extraction: the first character after the last 'Answer', if a letter A-H."""
    if not response:
        return None
    text = response.rsplit("Answer", 1)[-1].strip()
    for ch in "<>:.":
        text = text.replace(ch, "")
    text = text.strip()
    return text[0] if text and text[0] in LETTERS else None


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool]:
    """(extracted answer, correct) under `grader`."""
    if grader != "official":
        raise ValueError(f"unknown WE-MATH grader {grader!r}; choose from {GRADERS}")
    extracted = extract_official(response)
    return extracted, extracted is not None and extracted == item.gold


def read_official_results(path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
    """The authors' result format: testmini rows plus a `response` field (JSON array or JSONL).

    Rows are matched to the dataset by ID and key; a row whose question differs from the
    dataset's, an unknown problem, or a duplicate is an error naming the row.
    """
    path = Path(path)
    known = dataset.by_id()
    out: list[tuple[Item, str | None]] = []
    seen: set[str] = set()
    for n, row in read_records(path):
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", row=n)
        for f in ("ID", "key"):
            if not isinstance(row.get(f), str):
                raise DataError(path, "missing or not a string", row=n, field=f)
        iid = item_id(row)
        item = known.get(iid)
        if item is None:
            raise DataError(path, "no such question in testmini.json", row=n, field="ID", item=iid)
        if iid in seen:
            raise DataError(path, "question appears twice", row=n, field="key", item=iid)
        seen.add(iid)
        if "question" in row and row["question"] != item.question:
            raise DataError(path, "question text differs from testmini.json", row=n,
                            field="question", item=iid)
        response = row.get("response")
        if response is not None and not isinstance(response, str):
            raise DataError(path, f"expected a string, got {type(response).__name__}", row=n,
                            field="response", item=iid)
        out.append((item, response))
    return out
