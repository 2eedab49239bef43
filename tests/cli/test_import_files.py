"""`mathprobe import` of a file that is not what it claims: nothing is created and an existing
store is left as it was (an invalid file used to leave an empty 6.8 MB store behind); a file
whose gold answers are not testmini's is refused with its row; answers the question cannot take
('H' for options A-E) are kept, graded wrong as the authors' script grades them, and flagged
with their row, in the command's output and the run card."""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from mathprobe.store import close_all, open_store
from tests.support.cli import error_lines, mathprobe


def imported(path, db, data_dir, run_id="i"):
    return mathprobe("import", str(path), "--benchmark", "wemath", "--run-id", run_id,
                     "--db", str(db), "--data-dir", str(data_dir),
                     env=dict(os.environ, MATHPROBE_NO_WARM="1"), timeout=120)


@pytest.fixture
def rows(data_dir):
    """The rows of the first three-step WE-MATH problem whose options are A-E, each with a right
    answer."""
    every = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    first = next(r["ID"] for r in every if r["key"] == "3steps_multi" and r["option"].count(";")
                 == 4 and "F." not in r["option"])
    return [dict(r, response=f"<Answer>: <<{r['answer']}>>") for r in every if r["ID"] == first]


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_invalid_file_leaves_no_store_and_an_existing_one_untouched(tmp_path, data_dir, rows):
    files = {"not-a-list.json": '{"not": "a list"}', "empty.json": "", "no-rows.json": "[]",
             "garbage.json": "this is not JSON\n"}
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        db = tmp_path / f"{name}.duckdb"
        done = imported(path, db, data_dir)
        assert done.returncode == 2, (name, done.stderr)
        lines = error_lines(done.stderr)
        assert len(lines) == 1 and str(path) in lines[0], (name, done.stderr)
        assert not list(tmp_path.glob(f"{name}.duckdb*")), name       # nothing created

    good = tmp_path / "good.json"
    good.write_text(json.dumps(rows))
    db = tmp_path / "runs.duckdb"
    assert imported(good, db, data_dir, "good").returncode == 0
    before = digest(db)
    for name in files:
        done = imported(tmp_path / name, db, data_dir, "bad")
        assert done.returncode == 2, (name, done.stderr)
        assert digest(db) == before and not db.with_name("runs.duckdb.wal").exists(), name
    store = open_store(db)
    try:
        assert store.query("SELECT run_id FROM runs") == [("good",)]
    finally:
        close_all()


def test_gold_answers_that_are_not_testminis_are_refused_with_their_row(tmp_path, data_dir,
                                                                         rows):
    """The file's own `answer` field had been ignored: a file about other questions (or other
    answers) was imported as if it were testmini's."""
    for gold, said in (("Z", "'Z' is none of the question's options A, B, C, D, E"),
                       (None, "differs from testmini.json's answer")):
        bad = [dict(r) for r in rows]
        letters = "ABCD"
        bad[1]["answer"] = gold or next(c for c in letters if c != rows[1]["answer"])
        path = tmp_path / "bad-gold.json"
        path.write_text(json.dumps(bad))
        db = tmp_path / "gold.duckdb"
        done = imported(path, db, data_dir)
        lines = error_lines(done.stderr)
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert f"{path}: row 2 ({rows[1]['ID']}/{rows[1]['key']}): field 'answer': " in lines[0]
        assert said in lines[0], lines[0]
        assert not db.exists()


def test_answers_outside_the_options_are_kept_graded_wrong_and_flagged(tmp_path, data_dir, rows):
    answers = ["H", "Z", "<Thought process>: <<...>> <Answer>: <<G>>"]
    odd = [dict(r, response=a) for r, a in zip(rows, answers)] + rows[len(answers):]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(odd))
    db = tmp_path / "odd.duckdb"
    done = imported(path, db, data_dir)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stderr.split())
    assert "3 row(s) kept but flagged:" in text, done.stderr
    for n, (row, letter) in enumerate(zip(rows, "HZG"), start=1):
        assert (f"row {n} ({row['ID']}/{row['key']}): answer {letter!r} is none of the "
                "question's options") in text, done.stderr
    store = open_store(db)
    try:
        card = store.card_facts("i")
        assert card["import"]["flagged"] == 3 and len(card["import"]["flagged_rows"]) == 3
        verdicts = dict(store.query("SELECT item_id, correct FROM item_verdicts "
                                    "WHERE run_id = 'i'"))
        assert [verdicts[f"{r['ID']}/{r['key']}"] for r in rows] == \
            [False] * 3 + [True] * (len(rows) - 3)
    finally:
        close_all()
