"""ConceptMath's data (Wu et al. 2024): the four systems' JSON lines, loaded and checked row by
row, the few-shot exemplars (the authors' chat turns, `fewshot_authors_chat.json`), and the
strata a run with --limit samples over.

Two facts of the published data shape this module:

* `element_en.jsonl` has two different problems under idx 603 (and six rows whose answer is
  NaN). The authors' evaluation counts every row, so both are items here: the first keeps the id
  `element_en/603`, a later row with the same idx gets `element_en/603#2` (and so on).
* The authors' published response files carry, on a few rows, an `answer` that differs from
  today's dataset; see `official_results`.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mathprobe import contract
from mathprobe.data_cache import per_data_folder
from mathprobe.errors import DataError
from mathprobe.files import read_jsonl, read_text
from mathprobe.items import Item, given

NAME = "conceptmath"
SYSTEMS = ("element_en", "element_zh", "middle_en", "middle_zh")     # file names = `grade` values
# The authors' 5-shot exemplars as their evaluation sends them (evaluation/utils/prompt_utils.py):
# per system, 10 chat turns, user question / assistant worked answer. (`fewshot_5shot.json`, the
# PDF transcription, differs from them in every answer and is not read.)
FEWSHOT_FILE = "fewshot_authors_chat.json"
N_SHOTS = 5
ROLES = ("user", "assistant")
TEXT_FIELDS = ("cate0", "cate1", "cate2", "question")


@dataclass(frozen=True)
class Dataset(contract.Dataset):
    # system -> the authors' 5-shot exemplars as (user question, assistant answer) turn pairs;
    # empty when the data dir has no fewshot_authors_chat.json (the few-shot setting then
    # refuses to build a prompt).
    fewshot: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    fewshot_path: str = ""


def language(system: str) -> str:
    return "zh" if system.endswith("_zh") else "en"


def concept_path(row: dict[str, Any]) -> str:
    """The authors' concept name of a row's leaf: 'cate0/cate1/cate2' (cate2 may hold '/')."""
    return "/".join([row["cate0"], row["cate1"], row["cate2"]])


def gold_string(answer: Any) -> str:
    """The answer as the authors' grader reads it: `str()` of the JSON value, so 12 -> '12',
    11.94 -> '11.94' and a NaN answer -> 'nan' (which no response can match)."""
    return str(answer)


def _json_safe(value: Any) -> Any:
    """NaN/inf are not JSON; the store's payload keeps them as null (the row says so)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_row(row: Any, *, path: Path, n: int, system: str) -> tuple[dict[str, Any], str]:
    """Check one dataset row; return it and its gold string, or raise a DataError naming the
    row and the field."""
    if not isinstance(row, dict):
        raise DataError(path, "expected a JSON object", row=n)
    ident = f"{system}/{row.get('idx')}" if "idx" in row else None
    idx = row.get("idx")
    if not isinstance(idx, int) or isinstance(idx, bool):
        raise DataError(path, f"missing or not an integer (got {idx!r})", row=n, field="idx")
    for f in TEXT_FIELDS:
        if not isinstance(row.get(f), str) or not row[f].strip():
            raise DataError(path, "missing or not a non-empty string", row=n, field=f, item=ident)
    if row.get("grade") != system:
        raise DataError(path, f"grade {row.get('grade')!r} does not match the file's system "
                        f"{system!r}", row=n, field="grade", item=ident)
    if "answer" not in row:
        raise DataError(path, "missing", row=n, field="answer", item=ident)
    answer = row["answer"]
    if not (isinstance(answer, str) or _is_number(answer)):
        raise DataError(path, f"expected a string or a number, got {type(answer).__name__}",
                        row=n, field="answer", item=ident)
    if isinstance(answer, str) and not answer.strip():
        raise DataError(path, "empty answer", row=n, field="answer", item=ident)
    return row, gold_string(answer)


def load_system(data_dir: Path, system: str) -> list[Item]:
    path = Path(data_dir) / NAME / f"{system}.jsonl"
    items: list[Item] = []
    seen: dict[int, list[dict[str, Any]]] = {}
    for n, raw in read_jsonl(path):
        row, gold = parse_row(raw, path=path, n=n, system=system)
        same = seen.setdefault(row["idx"], [])
        if any(r["question"] == row["question"] for r in same):
            raise DataError(path, f"idx {row['idx']} appears twice with the same question",
                            row=n, field="idx", item=f"{system}/{row['idx']}")
        iid = f"{system}/{row['idx']}" + (f"#{len(same) + 1}" if same else "")
        same.append(row)
        payload = {k: _json_safe(v) for k, v in row.items()}
        if payload["answer"] is None:
            payload["answer_not_finite"] = gold          # 'nan' in the published data
        items.append(Item(benchmark=NAME, item_id=iid, question=row["question"], gold=gold,
                          group_id=system, concept=concept_path(row), payload=payload))
    if not items:
        raise DataError(path, "no problems in the file")
    return items


def reference_tables(dataset: Dataset) -> dict[str, dict[str, tuple[str, list]]]:
    """The table the views join against: each problem's system and concept levels as columns
    (sql/conceptmath/tables/conceptmath_items.sql), so no view reads the JSON payloads."""
    its = dataset.items
    return {"conceptmath_items": {
        "item_id": ("VARCHAR", [i.item_id for i in its]),
        "system": ("VARCHAR", [i.group_id for i in its]),
        **{c: ("VARCHAR", [i.payload[c] for i in its]) for c in ("cate0", "cate1", "cate2")},
    }}


def load_fewshot(data_dir: Path) -> tuple[dict[str, tuple[tuple[str, str], ...]], Path]:
    """The authors' few-shot chats: system -> (user, assistant) turn pairs, checked turn by turn
    (5 pairs, roles alternating from `user`, non-empty texts kept exactly as published)."""
    path = Path(data_dir) / NAME / FEWSHOT_FILE
    if not path.is_file():
        return {}, path
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise DataError(path, "expected an object: system -> list of {role, content} turns")
    shots: dict[str, tuple[tuple[str, str], ...]] = {}
    for system in SYSTEMS:
        turns = data.get(system)
        if not isinstance(turns, list) or len(turns) != 2 * N_SHOTS:
            raise DataError(path, f"expected a list of {2 * N_SHOTS} chat turns ({N_SHOTS} "
                            "user / assistant pairs)", field=system)
        texts = []
        for n, turn in enumerate(turns, start=1):
            role = ROLES[(n - 1) % 2]
            if not isinstance(turn, dict) or turn.get("role") != role:
                raise DataError(path, f"turn {n} of {system}: expected role {role!r}",
                                row=n, field=f"{system}.role")
            if not isinstance(turn.get("content"), str) or not turn["content"].strip():
                raise DataError(path, f"turn {n} of {system}: missing or empty", row=n,
                                field=f"{system}.content")
            texts.append(turn["content"])
        shots[system] = tuple(zip(texts[0::2], texts[1::2]))
    return shots, path


@per_data_folder(NAME)
def _load(data_dir: Path) -> Dataset:
    items: list[Item] = []
    for system in SYSTEMS:
        items.extend(load_system(data_dir, system))
    fewshot, fewshot_path = load_fewshot(data_dir)
    items = [replace(it, exemplars=fewshot.get(given(it.group_id, "group_id"), ())) for it in items]
    files = [data_dir / NAME / f"{system}.jsonl" for system in SYSTEMS]
    return Dataset(items=tuple(items), fewshot=fewshot, fingerprint=contract.fingerprint(*files),
                   fewshot_path=str(fewshot_path))


def load(data_dir: str | Path) -> Dataset:
    """The four systems, in the order element_en, element_zh, middle_en, middle_zh (cached);
    each item carries its system's few-shot exemplars."""
    return _load(Path(data_dir))


# as its cache has (per_data_folder's wrapper, typed as a plain callable, has it)
load.cache_clear = _load.cache_clear  # type: ignore[attr-defined]


STRATA = ("system", "level-1 concept", "concept")


def strata(item: Item) -> tuple[str, ...]:
    """An item's stratum: its system, its level-1 concept and its leaf concept."""
    concept = given(item.concept, "concept")
    return (given(item.group_id, "group_id"), concept.split("/")[0], concept)
