"""ConceptMath adapter (Wu et al. 2024): the four systems' data, the paper's three prompt settings
and its graders.

Everything this project knows about ConceptMath's files lives here; the graders live in
`tasks/conceptmath_grader.py`, the metrics in `sql/30_conceptmath_views.sql`.

Two facts of the published data shape this module:

* `element_en.jsonl` has two different problems under idx 603 (and six rows whose answer is
  NaN). The authors' evaluation counts every row, so both are items here: the first keeps the id
  `element_en/603`, a later row with the same idx gets `element_en/603#2` (and so on).
* The authors' published response files (`reference_llama3_70b/`) carry, on a few rows, an
  `answer` that differs from today's dataset (e.g. middle_en/862: `[2 ,3]` in the file,
  `[second ,third]` in the dataset), and the authors' grader grades against the file's answer.
  An import therefore grades a row against the answer its file carries; see
  `read_official_results`.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from tasks import conceptmath_grader as graders
from tasks.errors import DataError
from tasks.files import read_jsonl, read_records
from tasks.items import Item

NAME = "conceptmath"
SYSTEMS = ("element_en", "element_zh", "middle_en", "middle_zh")     # file names = `grade` values
SETTINGS = ("zs", "zs-cot", "fs")     # zero-shot, zero-shot chain-of-thought, 5-shot
DEFAULT_SETTING = "zs"
DEFAULT_PARAMS = {"temperature": 0.0, "max_tokens": 1024}        # paper: greedy decoding
GRADERS = ("official", "strict")

FEWSHOT_FILE = "fewshot_5shot.json"
N_SHOTS = 5
COT_INSTRUCTION = {"en": "Let's think step by step.", "zh": "让我们一步一步地思考。"}
TEXT_FIELDS = ("cate0", "cate1", "cate2", "question")


@dataclass(frozen=True)
class Dataset:
    items: tuple[Item, ...]
    # system -> the paper's 5-shot exemplars as (question, answer) pairs; empty when the data
    # dir has no fewshot_5shot.json (the few-shot setting then refuses to build a prompt).
    fewshot: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    fingerprint: str = ""         # content hash of the files it was loaded from
    fewshot_path: str = ""

    def by_id(self) -> dict[str, Item]:
        return {i.item_id: i for i in self.items}


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


def load_fewshot(data_dir: Path) -> tuple[dict[str, tuple[tuple[str, str], ...]], Path]:
    path = Path(data_dir) / NAME / FEWSHOT_FILE
    if not path.is_file():
        return {}, path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise DataError(path, "expected an object: system -> list of {question, answer}")
    shots: dict[str, tuple[tuple[str, str], ...]] = {}
    for system in SYSTEMS:
        rows = data.get(system)
        if not isinstance(rows, list) or len(rows) != N_SHOTS:
            raise DataError(path, f"expected a list of {N_SHOTS} exemplars", field=system)
        pairs = []
        for n, ex in enumerate(rows, start=1):
            for f in ("question", "answer"):
                if not isinstance(ex, dict) or not isinstance(ex.get(f), str) or not ex[f].strip():
                    raise DataError(path, f"exemplar {n} of {system}: missing or empty",
                                    row=n, field=f"{system}.{f}")
            pairs.append((ex["question"], ex["answer"]))
        shots[system] = tuple(pairs)
    return shots, path


@lru_cache(maxsize=4)
def _load(data_dir: Path) -> Dataset:
    items: list[Item] = []
    h = hashlib.sha256()
    for system in SYSTEMS:
        items.extend(load_system(data_dir, system))
        h.update((data_dir / NAME / f"{system}.jsonl").read_bytes())
    h.update(str(data_dir).encode())
    fewshot, fewshot_path = load_fewshot(data_dir)
    items = [replace(it, exemplars=fewshot.get(it.group_id, ())) for it in items]
    return Dataset(items=tuple(items), fewshot=fewshot, fingerprint=h.hexdigest(),
                   fewshot_path=str(fewshot_path))


def load(data_dir: str | Path) -> Dataset:
    """The four systems, in the order element_en, element_zh, middle_en, middle_zh (cached);
    each item carries its system's few-shot exemplars."""
    return _load(Path(data_dir))


load.cache_clear = _load.cache_clear      # type: ignore[attr-defined]   (as for lru_cache)


def select(items: tuple[Item, ...], limit: int | None) -> list[Item]:
    """About `limit` items spread over the four systems and, within each, over its leaf
    concepts: round-robin across systems, and within a system round-robin across its leaves
    (each leaf's problems in file order). Deterministic; a larger limit selects a superset.
    Returned in dataset order."""
    if limit is None:
        return list(items)
    by_system: dict[str, dict[str, list[Item]]] = {}
    for it in items:
        by_system.setdefault(it.group_id, {}).setdefault(it.concept, []).append(it)

    def leaf_round_robin(leaves: dict[str, list[Item]]):
        queues = [list(v) for v in leaves.values()]
        depth = 0
        while any(depth < len(q) for q in queues):
            for q in queues:
                if depth < len(q):
                    yield q[depth]
            depth += 1

    streams = [leaf_round_robin(by_system[s]) for s in by_system]
    chosen: set[str] = set()
    while len(chosen) < limit and streams:
        for stream in list(streams):
            if len(chosen) >= limit:
                break
            nxt = next(stream, None)
            if nxt is None:
                streams.remove(stream)
            else:
                chosen.add(nxt.item_id)
    return [it for it in items if it.item_id in chosen]


def reference_tables(dataset: Dataset) -> dict[str, dict[str, tuple[str, list]]]:
    """None: the concept hierarchy travels in each item's payload (cate0, cate1, cate2)."""
    return {}


def build_prompt(item: Item, setting: str = DEFAULT_SETTING,
                 exemplars: tuple[tuple[str, str], ...] | None = None) -> str:
    """zs: the question alone; zs-cot: the question and a step-by-step instruction (in the
    system's language); fs: the system's 5 exemplars as Q:/A: pairs, then the question."""
    question = item.question
    if setting == "zs":
        return question
    if setting == "zs-cot":
        return f"{question}\n{COT_INSTRUCTION[language(item.group_id)]}"
    if setting == "fs":
        exemplars = exemplars if exemplars is not None else item.exemplars
        if not exemplars:
            raise DataError(FEWSHOT_FILE, "no few-shot exemplars for this system: the few-shot "
                            "setting needs fewshot_5shot.json in the data dir",
                            field=item.group_id, item=item.item_id)
        shots = "".join(f"Q: {q}\nA: {a}\n\n" for q, a in exemplars)
        return f"{shots}Q: {question}\nA:"
    raise ValueError(f"unknown ConceptMath setting {setting!r}; choose from {SETTINGS}")


def grade(grader: str, item: Item, response: str | None) -> tuple[str | None, bool]:
    """(extracted answer, correct) under `grader`: 'official' (the authors' lenient grader;
    extracted = the numbers it compares) or 'strict' (the final answer, by math-verify)."""
    gold = item.gold
    if grader == "official":
        if response is None:
            return None, False
        return (graders.official_extracted(response),
                graders.official_correct(gold, response, item.concept))
    if grader == "strict":
        return graders.strict_correct(gold, response)
    raise ValueError(f"unknown ConceptMath grader {grader!r}; choose from {GRADERS}")


def read_official_results(path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
    """The authors' inference format: dataset rows (idx, grade, question, answer, cate0..2)
    plus `response`, as JSON lines (or a JSON array).

    A row is matched to its item by grade and idx (and by question where one idx holds two
    problems). An unknown system or idx, a question that differs from the dataset's, or an item
    seen twice is a DataError naming the row. A row without a response is returned with None.

    Where the row's `answer` differs from the dataset's, the returned item carries the file's
    answer as its gold, and `import_official` grades the response against it (as the authors'
    grader does: it reads the answer from the file it grades).
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    by_key: dict[tuple[str, int], list[Item]] = {}
    for it in dataset.items:
        by_key.setdefault((it.group_id, it.payload["idx"]), []).append(it)
    out: list[tuple[Item, str | None]] = []
    seen: set[str] = set()
    for n, row in read_records(path):
        if not isinstance(row, dict):
            raise DataError(path, "expected a JSON object", row=n)
        system, idx = row.get("grade"), row.get("idx")
        if system not in SYSTEMS:
            raise DataError(path, f"unknown system {system!r} (expected one of "
                            f"{', '.join(SYSTEMS)})", row=n, field="grade")
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise DataError(path, f"missing or not an integer (got {idx!r})", row=n, field="idx")
        ident = f"{system}/{idx}"
        candidates = by_key.get((system, idx))
        if not candidates:
            raise DataError(path, f"no such problem in {system}.jsonl", row=n, field="idx",
                            item=ident)
        question = row.get("question")
        if len(candidates) == 1:
            item = candidates[0]
            if question is not None and question != item.question:
                raise DataError(path, f"question text differs from {system}.jsonl", row=n,
                                field="question", item=ident)
        else:
            matches = [c for c in candidates if c.question == question]
            if not matches:
                raise DataError(path, f"{system}.jsonl has {len(candidates)} problems with idx "
                                f"{idx}; this row's question matches none of them", row=n,
                                field="question", item=ident)
            item = matches[0]
        if item.item_id in seen:
            raise DataError(path, "problem appears twice", row=n, field="idx", item=item.item_id)
        seen.add(item.item_id)
        response = row.get("response")
        if response is not None and not isinstance(response, str):
            raise DataError(path, f"expected a string, got {type(response).__name__}", row=n,
                            field="response", item=item.item_id)
        if "answer" in row:
            answer = row["answer"]
            if not (isinstance(answer, str) or _is_number(answer)):
                raise DataError(path, f"expected a string or a number, got "
                                f"{type(answer).__name__}", row=n, field="answer",
                                item=item.item_id)
            file_gold = gold_string(answer)
            if file_gold != item.gold:
                item = replace(item, gold=file_gold,
                               payload={**item.payload, "answer_in_file": _json_safe(answer)})
        out.append((item, response))
    return out
