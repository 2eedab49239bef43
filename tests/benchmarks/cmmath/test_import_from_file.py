"""A CMMaTH authors' result file whose problems the local data lacks (their files cover the
whole benchmark, the local cmmath.json is a ~3% sample): the problems are taken from the file's
own records, the authors' figures (cmmath_official_scores) equal their script's logic on the
file, and the rows that cannot be imported are counted and listed instead of stopping at row 1.
"""
from __future__ import annotations

import json

import pytest

from mathprobe import reports
from mathprobe.benchmarks import cmmath
from mathprobe.store import Store, close_all
from tests.benchmarks.cmmath.test_data import make_cmmath_dir, record
from tests.benchmarks.cmmath.test_official import authors_statics, judged_records
from tests.support.cli import invoke


@pytest.fixture
def authors_file(tmp_path):
    """Local data: two problems (L-1, L-2). The authors' file: the judged records of
    test_official (none of them local), L-1 as the local data has it, plus three rows that
    cannot be imported: L-2 asking another question, a record without its labels, a repeat."""
    cmmath.load.cache_clear()
    root = make_cmmath_dir(tmp_path / "data", [record("L-1"), record("L-2")])
    local = json.loads((root / "cmmath" / "cmmath.json").read_text(encoding="utf-8"))
    rows = judged_records()
    rows.insert(3, {**local[0], "model_response": "答案：1", "output_correct": "Yes"})
    bad = [
        {**local[1], "question": "另一道题", "model_response": "2", "output_correct": "No"},
        {"problem_id": "x-99", "question": "无标签的题", "answer": "1\n",
         "model_response": "1", "output_correct": "Yes"},
        {**rows[0], "model_response": "again"},
    ]
    path = tmp_path / "eval_result.json"
    path.write_text(json.dumps(rows + bad, ensure_ascii=False, indent=4), encoding="utf-8")
    yield root, path, rows
    cmmath.load.cache_clear()


def test_problems_absent_from_the_local_data_import_from_the_file(authors_file, db):
    root, path, rows = authors_file
    out = invoke("import", str(path), "--benchmark", "cmmath", "--run-id", "gpt4v",
                 "--db", str(db), "--data-dir", str(root)).output
    n_rows = len(rows)
    assert f"{n_rows} rows" in out
    assert f"{n_rows - 1} problem(s) not in the local data were taken from the file" in out
    assert "3 row(s) left out:" in out
    first_bad = n_rows + 1
    assert f"row {first_bad} (L-2): question text differs" in out
    assert f"row {first_bad + 1} (x-99): not in cmmath.json, and the row is not a whole record" in out
    assert f"row {first_bad + 2} ({rows[0]['problem_id']}): problem appears twice (also row 1)" in out

    store = Store(db)
    # the authors' figures equal their script's logic on the rows imported
    groups, ssr, overall = authors_statics(rows)
    got = {(b, k): s for b, k, s in store.query(
        "SELECT breakdown, key, score FROM cmmath_official_scores "
        "WHERE run_id = 'gpt4v' AND grader = 'authors_judge'")}
    assert got[("overall", "all")] == overall
    for breakdown, (scores, total) in groups.items():
        assert {k: got[(breakdown, str(k))] for k in scores} == scores, breakdown
        assert got[(breakdown, "(total)")] == total
    official = dict(store.query("SELECT alpha, ssr FROM cmmath_official_ssr "
                                "WHERE run_id = 'gpt4v' AND grader = 'authors_judge'"))
    assert official == pytest.approx(ssr, abs=0)
    # the paper's figures and the rule grader see the same problems
    (n,), = store.query("SELECT n FROM cmmath_paper_accuracy WHERE run_id = 'gpt4v' AND "
                        "grader = 'rules' AND answer_type = 'all'")
    assert n == n_rows
    # the run card says what came from where
    facts = store.card_facts("gpt4v")["import"]
    assert (facts["rows"], facts["items_from_file"], facts["skipped"]) == (n_rows, n_rows - 1, 3)
    assert facts["skipped_rows"][0].startswith(f"row {first_bad} (L-2)")


def test_problems_from_a_file_survive_a_reload_of_the_local_data(authors_file, db):
    """Loading a changed cmmath.json replaces its reference tables whole; the problems an import
    took from its file stay, and the figures with them."""
    root, path, rows = authors_file
    invoke("import", str(path), "--benchmark", "cmmath", "--run-id", "gpt4v",
           "--db", str(db), "--data-dir", str(root))
    store = Store(db)
    before = store.query("SELECT breakdown, key, n, correct, score FROM cmmath_official_scores "
                         "WHERE run_id = 'gpt4v' AND grader = 'authors_judge' ORDER BY ALL")
    close_all()
    make_cmmath_dir(root, [record("L-1"), record("L-2"), record("L-3")])    # the data changes
    cmmath.load.cache_clear()
    from mathprobe.runs import prepare

    store = Store(db)
    prepare(store, cmmath.benchmark, root)
    store.store_figures()
    after = store.query("SELECT breakdown, key, n, correct, score FROM cmmath_official_scores "
                        "WHERE run_id = 'gpt4v' AND grader = 'authors_judge' ORDER BY ALL")
    assert after == before
    assert reports.build(store, "gpt4v")["grader"] == "authors_judge"


def test_a_file_with_no_importable_row_is_one_error(tmp_path, db):
    import os

    from tests.support.cli import error_lines, mathprobe

    root = make_cmmath_dir(tmp_path / "data", [record("L-1")])
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"problem_id": "zz", "model_response": "1"}]), encoding="utf-8")
    done = mathprobe("import", str(path), "--benchmark", "cmmath", "--run-id", "r", "--db",
                     str(db), "--data-dir", str(root), env=dict(os.environ))
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert "no row could be imported" in line and "row 1 (zz)" in line
