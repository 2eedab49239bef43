"""One real store for the results tests, built once per session through the real import path:

- WE-MATH: the reference response set `v1` (the authors' figures are known for it), an identical
  copy `v1-copy`, `v1-perturbed` (10 one-step questions v1 got right answered wrong, 4 it got
  wrong answered right), `v1-sub` (every fifth problem: 105); `v1` and `v1-perturbed` are
  then made the plain and KCA runs of one model.
- ConceptMath: the authors' published Llama-3-70B responses to the first 150 element_en
  problems, as the zero-shot run `cm-zs`, and a copy with every fifth answer emptied as the
  few-shot run `cm-fs` of the same model.
- CMMaTH: answers to the first 300 sample questions, right for two thirds of them, `cmm-a`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mathprobe import registry
from mathprobe.benchmarks import wemath
from mathprobe.runs import import_official
from mathprobe.store import open_store

N_WRONG, N_RIGHT = 10, 4          # v1-perturbed: right -> wrong, wrong -> right (one-step)


@dataclass
class ResultsStore:
    db: Path
    data_dir: Path
    flipped_to_wrong: list[str] = field(default_factory=list)
    flipped_to_right: list[str] = field(default_factory=list)
    responses: dict[str, list[dict]] = field(default_factory=dict)   # run -> rows imported

    @property
    def store(self):
        return open_store(self.db)


def _right(row: dict) -> bool:
    return wemath.extract_official(row["response"]) == row["answer"]


def _wrong_letter(row: dict) -> str:
    return next(c for c in "ABCDE" if c != row["answer"])


def _import(rs: ResultsStore, tmp: Path, bench: str, run_id: str, rows: list[dict],
            suffix: str = ".json") -> None:
    path = tmp / f"{run_id}{suffix}"
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows, ensure_ascii=False))
    import_official(rs.store, registry.get(bench), rs.data_dir, path, run_id)
    rs.responses[run_id] = rows


@pytest.fixture(scope="session")
def results(tmp_path_factory, data_dir) -> ResultsStore:
    tmp = tmp_path_factory.mktemp("results")
    rs = ResultsStore(tmp / "results.duckdb", data_dir)
    v1 = json.loads((data_dir / "wemath" / "reference_cases" / "v1_responses.json").read_text())
    _import(rs, tmp, "wemath", "v1", v1)
    _import(rs, tmp, "wemath", "v1-copy", v1)
    perturbed = [dict(r) for r in v1]
    singles = [r for r in perturbed if not r["key"].endswith("multi")]
    to_wrong = [r for r in singles if _right(r)][:N_WRONG]
    to_right = [r for r in singles if not _right(r)][:N_RIGHT]
    for r in to_wrong:
        r["response"] = f"<Answer>: <<{_wrong_letter(r)}>>"
        rs.flipped_to_wrong.append(wemath.item_id(r))
    for r in to_right:
        r["response"] = f"<Answer>: <<{r['answer']}>>"
        rs.flipped_to_right.append(wemath.item_id(r))
    _import(rs, tmp, "wemath", "v1-perturbed", perturbed)
    fifth = set(list(dict.fromkeys(r["ID"] for r in v1))[::5])
    _import(rs, tmp, "wemath", "v1-sub", [r for r in v1 if r["ID"] in fifth])

    ref = data_dir / "conceptmath" / "reference_llama3_70b" / "element_en.jsonl"
    cm = [json.loads(line) for line in ref.read_text().splitlines()[:150]]
    _import(rs, tmp, "conceptmath", "cm-zs", cm, ".jsonl")
    _import(rs, tmp, "conceptmath", "cm-fs",
            [{**r, "response": "" if k % 5 == 0 else r["response"]} for k, r in enumerate(cm)],
            ".jsonl")

    records = json.loads((data_dir / "cmmath" / "cmmath.json").read_text())[:300]
    answers = []
    for k, r in enumerate(records):
        gold = str(r["answer"]).strip()
        if k % 3 == 2:
            text = "故选D" if r["answer_type"] == "choice" and not gold.startswith("D") else "答案是 -987654"
        else:
            text = f"故选{gold}" if r["answer_type"] == "choice" else f"答案是 {gold}"
        answers.append({**r, "response": text})
    _import(rs, tmp, "cmmath", "cmm-a", answers)

    # one model's plain and KCA runs (paper Fig. 10), and one model's ConceptMath settings
    with rs.store.transaction() as con:
        con.execute("UPDATE runs SET model = 'model-x', setting = 'plain' WHERE run_id = 'v1'")
        con.execute("UPDATE runs SET model = 'model-x', setting = 'kca' "
                    "WHERE run_id = 'v1-perturbed'")
        con.execute("UPDATE runs SET model = 'llama-3-70b', setting = 'zs' WHERE run_id = 'cm-zs'")
        con.execute("UPDATE runs SET model = 'llama-3-70b', setting = 'fs' WHERE run_id = 'cm-fs'")
    return rs
