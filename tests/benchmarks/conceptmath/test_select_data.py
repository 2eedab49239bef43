"""`mathprobe select-data` end to end on a stored ConceptMath run (Elementary-EN, three concepts
it gets all wrong) and a corpus made here: documents about those concepts, about others, in
Chinese, near-duplicates, and documents that hold a benchmark question (copied, or with a few
words changed). The file written holds only documents for the weakest concepts, at most the
quota each, none overlapping a benchmark question, in chat format; the selection is in the
store; the general set is mixed in as asked; a bad corpus row is a one-line error."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mathprobe import runs
from mathprobe.benchmarks import conceptmath
from mathprobe.benchmarks.conceptmath.targeted.overlap import BenchmarkOverlap
from mathprobe.cli.main import app
from mathprobe.store import Store, close_all, open_store
from tests.benchmarks.conceptmath.test_views import _live_run

WEAK = 3
QUOTA = 4


def _words(questions: list[str]) -> list[str]:
    return [w.strip("?,.") for q in questions for w in q.split() if w.strip("?,.")]


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory, data_dir):
    """A run on Elementary-EN: every problem right but those of three concepts."""
    conceptmath.load.cache_clear()
    dataset = conceptmath.load(data_dir)
    element = [i for i in dataset.items if i.group_id == "element_en"]
    by_concept: dict[str, list] = {}
    for i in element:
        by_concept.setdefault(i.concept, []).append(i)
    weak = sorted(c for c, its in by_concept.items() if len(its) >= 10)[:WEAK]
    db = tmp_path_factory.mktemp("select") / "store.duckdb"
    store = Store(db)
    runs.prepare(store, conceptmath.benchmark, data_dir)
    _live_run(store, dataset, "llama", "m", "zs", {i.item_id: i.concept not in weak
                                                   for i in element}, "2024-01-01")
    close_all()
    return db, weak, by_concept, dataset


def make_corpus(path: Path, weak: list[str], by_concept: dict, dataset) -> dict[str, str]:
    """The corpus as JSON lines; returns the ids of the planted copies (id -> item copied)."""
    rng = random.Random(7)
    rows, copies = [], {}

    def about(concept: str, n_words: int = 80) -> str:
        words = _words([i.question for i in by_concept[concept]])
        return " ".join(rng.choice(words) for _ in range(n_words)) + "."

    for concept in weak:                                  # relevant: 8 a weak concept
        for k in range(8):
            rows.append({"id": f"rel-{concept}-{k}", "text": about(concept)})
        first = by_concept[concept][0]
        copies[f"copy-{concept}"] = first.item_id       # a benchmark question, as is
        rows.append({"id": f"copy-{concept}", "text": f"Homework help. {first.question} "
                     f"{about(concept, 30)}"})
        second = by_concept[concept][1].question.split()
        second[len(second) // 3] = "banana"                # a copy with a word changed
        copies[f"edited-{concept}"] = by_concept[concept][1].item_id
        rows.append({"id": f"edited-{concept}", "text": " ".join(second)})
        base = about(concept, 120)                         # a page and its mirror
        rows.append({"id": f"page-{concept}", "text": base})
        rows.append({"id": f"mirror-{concept}", "text": "Mirror of: " + base})
    others = [c for c in by_concept if c not in weak][:10]
    for concept in others:                                 # about concepts the run masters
        for k in range(3):
            rows.append({"id": f"other-{concept}-{k}", "text": about(concept)})
    zh = [i.question for i in dataset.items if i.group_id == "element_zh"][:5]
    rows += [{"id": f"zh-{k}", "text": "".join(rng.sample(q, len(q)))} for k, q in enumerate(zh)]
    rng.shuffle(rows)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return copies


def invoke(args: list[str]):
    return CliRunner().invoke(app, args, catch_exceptions=False)


def test_select_data_keeps_weak_concepts_within_quota_and_never_the_benchmark(
        stored_run, tmp_path, data_dir):
    db, weak, by_concept, dataset = stored_run
    corpus = tmp_path / "corpus.jsonl"
    copies = make_corpus(corpus, weak, by_concept, dataset)
    general = tmp_path / "metamath.jsonl"
    general.write_text(json.dumps({"query": by_concept[weak[0]][2].question,   # a copy
                                   "response": "42"}) + "\n"
                       + "".join(json.dumps({"query": f"What is {k} + {k}?",
                                             "response": f"It is {2 * k}."}) + "\n"
                                 for k in range(50)))
    out = tmp_path / "train.jsonl"
    result = invoke(["select-data", "--db", str(db), "--run", "llama", "--corpus", str(corpus),
                     "--weakest", str(WEAK), "--per-concept", str(QUOTA), "--id-field", "id",
                     "--out", str(out), "--mix", str(general), "--mix-ratio", "2",
                     "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    chosen = [r for r in rows if r["concept"] is not None]
    mixed = [r for r in rows if r["concept"] is None]
    # only the weak concepts, at most the quota each, and the relevant documents fill it
    assert {r["concept"] for r in chosen} == set(weak)
    assert all(sum(r["concept"] == c for r in chosen) == QUOTA for c in weak)
    # never a benchmark question: neither planted copy, and no overlap by the probes
    assert not {r["source_id"] for r in rows} & set(copies)
    overlap = BenchmarkOverlap(dataset.items)
    assert all(overlap.check(r["messages"][-1]["content"]) is None for r in rows)
    # a page and its mirror never both
    ids = {r["source_id"] for r in chosen}
    assert not any({f"page-{c}", f"mirror-{c}"} <= ids for c in weak)
    # chat format
    assert all([m["role"] for m in r["messages"]] == ["user", "assistant"] for r in rows)
    assert all(r["source_id"].startswith("rel-") or r["source_id"].startswith(("page-",
                                                                                "mirror-"))
               for r in chosen)
    # the general set: 2 rows per selected document, its copy of a question (its first row,
    # so always drawn) left out
    assert len(mixed) == 2 * len(chosen)
    assert all(m["messages"][0]["content"].startswith("What is") for m in mixed)
    text = " ".join(result.output.split())
    assert "top-1" in text and "element_en:" in text              # the classifier, held out
    assert "document(s) overlapping a benchmark question" in text
    # the selection is in the store, as written
    store = open_store(db)
    recorded = store.query_dicts("SELECT * FROM conceptmath_selections ORDER BY source, concept,"
                                 " rank")
    close_all()
    assert len(recorded) == len(rows)
    assert {(r["concept"], r["source_id"]) for r in recorded if r["source"] == "corpus"} == \
        {(r["concept"], r["source_id"]) for r in chosen}
    assert all(r["run_id"] == "llama" and r["grader"] == "official" and r["corpus_fingerprint"]
               and r["score"] > 0 for r in recorded if r["source"] == "corpus")
    params = json.loads(recorded[0]["params"])
    assert params["removed_overlapping_benchmark"] >= 1 and params["documents_read"] == len(
        corpus.read_text().splitlines())
    assert params["mix_removed_overlapping"] == 1


def test_the_same_corpus_gives_the_same_selection(stored_run, tmp_path, data_dir):
    db, weak, by_concept, dataset = stored_run
    corpus = tmp_path / "corpus.jsonl"
    make_corpus(corpus, weak, by_concept, dataset)
    outs = []
    for k in range(2):
        out = tmp_path / f"t{k}.jsonl"
        result = invoke(["select-data", "--db", str(db), "--run", "llama", "--corpus",
                         str(corpus), "--weakest", "2", "--per-concept", "3", "--out", str(out),
                         "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.output
        outs.append(out.read_text())
    assert outs[0] == outs[1] and outs[0]
    store = open_store(db)
    prints = store.query("SELECT DISTINCT corpus_fingerprint, classifier FROM "
                         "conceptmath_selections WHERE out_file LIKE ?", [str(tmp_path) + "%"])
    close_all()
    assert len(prints) == 1


@pytest.mark.parametrize("line, said", [
    ('{"text": 7}', "row 2, field 'text': not a string"),
    ('{"text": null}', "row 2, field 'text': missing (null)"),
    ('{"body": "x"}', "no field 'text' (--text-field)"),
])
def test_a_bad_corpus_row_is_one_line_naming_file_row_and_field(stored_run, tmp_path, data_dir,
                                                                line, said, capsys):
    from mathprobe.cli.main import main

    db, *_ = stored_run
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"text": "fine"}\n' + line + "\n" if "body" not in line else line + "\n")
    out = tmp_path / "t.jsonl"
    with pytest.raises(SystemExit) as stop:
        main(["select-data", "--db", str(db), "--run", "llama", "--corpus", str(corpus),
              "--out", str(out), "--data-dir", str(data_dir)])
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    # one error line, the last: a missing field before any work, a bad row when it is read
    assert [x.startswith("error:") for x in lines].count(True) == 1
    assert lines[-1].startswith("error:")
    assert f"--corpus {corpus}" in lines[-1] and said in lines[-1]
    if "field" in said and "no field" in said:
        assert len(lines) == 1
    assert not out.exists()


def test_the_output_may_not_be_what_the_command_reads(stored_run, tmp_path, data_dir, capsys):
    from mathprobe.cli.main import main

    db, weak, by_concept, dataset = stored_run
    corpus = tmp_path / "corpus.jsonl"
    make_corpus(corpus, weak, by_concept, dataset)
    before = corpus.read_bytes()
    for target, said in ((corpus, "is an input file"), (db, "is the store")):
        with pytest.raises(SystemExit) as stop:
            main(["select-data", "--db", str(db), "--run", "llama", "--corpus", str(corpus),
                  "--out", str(target), "--data-dir", str(data_dir)])
        assert stop.value.code == 2
        assert said in " ".join(capsys.readouterr().err.split())
    assert corpus.read_bytes() == before
