"""`mathprobe errors`: why a run failed. A response set imported the way a user brings one in
(`mathprobe import --format official`), its wrong answers labelled by a labeller model served
over loopback HTTP in the OpenAI wire format (tests/support/labeller.py scripts its replies):
each wrong answer asked about once, an unreadable reply no label, nothing asked the second
time, the paper's figures in `report --json`; the same for CMMaTH and ConceptMath with their
own taxonomies; labels out to people and back (kappa, the confusion table); two runs compared."""
from __future__ import annotations

import csv
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from mathprobe import registry
from mathprobe.cli.main import app
from mathprobe.errors import MathprobeError
from mathprobe.store import close_all, open_store
from tests.support.labeller import Labeller, problem_of, wemath_subset

LABELLER = "openai:fake-labeller"
WEMATH = registry.get("wemath")
WEMATH_TYPES = list(WEMATH.error_taxonomy.names)


def run(*args: str, code: int = 0):
    result = CliRunner().invoke(app, list(args))
    close_all()
    assert result.exit_code == code, result.output + repr(result.exception)
    return result


def q(db, sql: str, params=None):
    store = open_store(db)
    try:
        return store.query(sql, params)
    finally:
        close_all()


@pytest.fixture
def wemath_run(tmp_path, data_dir, db):
    rows = wemath_subset(data_dir, tmp_path / "responses.json")
    run("import", str(tmp_path / "responses.json"), "--benchmark", "wemath", "--format",
        "official", "--run-id", "we", "--db", str(db), "--data-dir", str(data_dir))
    return rows


def wrong_answers(db, run_id: str, grader: str) -> dict[str, str]:
    """item -> response text of the answers `grader` calls wrong (read from the store)."""
    return dict(q(db, "SELECT c.item_id, c.response FROM item_verdicts v JOIN current_responses "
                      "c ON c.response_id = v.response_id WHERE v.run_id = ? AND v.grader = ? "
                      "AND NOT v.correct", [run_id, grader]))


def shown(bench, data_dir) -> dict[str, str]:
    return {i.item_id: bench.shown_question(i) for i in bench.load(data_dir).items}


def test_wemath_wrong_answers_are_labelled_once_and_drawn_by_concept(fake_openai, wemath_run,
                                                                     data_dir, db, tmp_path):
    labeller = Labeller(WEMATH_TYPES, unreadable_every=5)
    fake_openai.reply = labeller
    wrong = wrong_answers(db, "we", "official")
    empty = {i for i, text in wrong.items() if not (text or "").strip()}
    asked_about = set(wrong) - empty
    problems = shown(WEMATH, data_dir)
    expected = {i: labeller.expected(problems[i], wrong[i]) for i in asked_about}
    assert len(asked_about) > 40 and None in expected.values()

    out = run("errors", "we", "--judge", LABELLER, "--db", str(db), "--data-dir", str(data_dir),
              "--json", code=3)                      # some replies unreadable: incomplete
    result = json.loads(out.stdout)
    # each wrong answer asked about once, with the question, options, reference, the whole
    # response, the paper's definitions, and the image the model saw
    assert result["wrong"] == len(wrong) and result["asked"] == len(asked_about)
    assert len(labeller.asked) == len(asked_about) == len(set(labeller.asked))
    assert sorted(problem_of(p) for p in labeller.asked) == sorted(problems[i] for i in asked_about)
    one = next(p for p in labeller.asked if problem_of(p) == problems[min(asked_about)])
    gold = q(db, "SELECT gold FROM items WHERE benchmark = 'wemath' AND item_id = ?",
             [min(asked_about)])[0][0]
    assert f"Reference answer: {gold}\n" in one and wrong[min(asked_about)] in one
    assert "Option: A." in one
    assert ("Errors in visual perception, where the model incorrectly identifies shapes or "
            "numbers in an image.") in one and "only this error" in one
    assert one.rstrip().endswith("Error type: <one of: Knowledge Error, Reason Error, "
                                 "Visual Error, Hallucination>")
    content = labeller.payloads[0]["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in content)
    # readable replies are labels; an unreadable one is label_failed and no label, never a guess
    labels = dict(q(db, "SELECT item_id, error_type FROM error_labels WHERE run_id = 'we' AND "
                        "labeler = ?", [LABELLER]))
    assert labels == {i: t for i, t in expected.items() if t is not None}
    failed = {i for i, t in expected.items() if t is None}
    assert result["label_failed"] == len(failed) and result["labelled"] == len(labels)
    statuses = dict(q(db, "SELECT item_id, status FROM current_responses WHERE run_id = ?",
                      [f"we@errors:{LABELLER}"]))
    assert {i for i, s in statuses.items() if s == "label_failed"} == failed
    # the empty answers: WE-MATH has no type for no attempt, so they are left out and counted
    assert result["unlabelled"] == ({"no attempt (no type for it in the taxonomy)": len(empty)}
                                    if empty else {})
    first = q(db, "SELECT first_error, source FROM error_labels WHERE run_id = 'we' LIMIT 1")[0]
    assert first == ("the step that goes wrong", "model")
    (tokens,), = q(db, "SELECT sum(input_tokens) FROM responses WHERE run_id = ?",
                   [f"we@errors:{LABELLER}"])
    assert tokens > 0 and result["input_tokens"] == tokens

    # a second call asks nothing
    served = fake_openai.served
    again = json.loads(run("errors", "we", "--judge", LABELLER, "--db", str(db), "--data-dir",
                           str(data_dir), "--json", code=3).stdout)
    assert again["asked"] == 0 and fake_openai.served == served

    # --retry-failed asks only the unreadable ones again; now every one reads
    labeller.unreadable_every = None
    fixed = json.loads(run("errors", "we", "--judge", LABELLER, "--db", str(db), "--data-dir",
                           str(data_dir), "--retry-failed", "--json").stdout)
    assert fixed["asked"] == len(failed) == fake_openai.served - served
    labels = dict(q(db, "SELECT item_id, error_type FROM error_labels WHERE run_id = 'we'"))
    assert set(labels) == asked_about

    # report --json: the distribution (Wilson intervals) and Figure 11 by concept
    report = json.loads(run("report", "--run-id", "we", "--db", str(db), "--json").stdout)
    errors = report["errors"]
    assert errors["source"] == "WE-MATH (Qiao et al. 2024), Appendix E.2, Table 9"
    (x,) = errors["labelled"]
    counts = Counter(labels.values())
    assert [t["error_type"] for t in x["types"]] == WEMATH_TYPES
    assert {t["error_type"]: t["n"] for t in x["types"]} == {t: counts[t] for t in WEMATH_TYPES}
    assert x["n_labelled"] == len(labels) and x["n_wrong"] == len(wrong)
    for t in x["types"]:
        assert t["share"] == pytest.approx(counts[t["error_type"]] / len(labels))
        assert t["ci_low"] < t["share"] < t["ci_high"]
    figure11 = next(f for f in x["figures"] if f["key"] == "figure11")
    assert figure11["n_rows"] == 67
    concepts = dict(q(db, "SELECT item_id, concept FROM items WHERE benchmark = 'wemath'"))
    by_concept = Counter((c.strip(), t) for i, t in labels.items()
                         for c in concepts[i].split(";"))
    drawn = {(r["label"], t): n for r in figure11["rows"] for t, n in r["counts"].items() if n}
    assert drawn == dict(by_concept)
    assert figure11["with_any"] == {t: len({c for c, k in by_concept if k == t})
                                    for t in WEMATH_TYPES}
    steps = next(f for f in x["figures"] if f["key"] == "steps")
    multi = {i for i in labels if i.endswith("multi")}
    assert {r[0] for r in steps["rows"]} == {i.split("/")[0] for i in multi}
    assert any("a model's labels, not audited against people" in n for n in errors["notes"])

    # the terminal report and the HTML report show them too
    text = run("report", "--run-id", "we", "--db", str(db)).stdout
    assert "WE-MATH error types" in text and "Figure 11" in text
    html = tmp_path / "r.html"
    run("report", "--db", str(db), "--html", str(html), "--runs", "we", "--data-dir",
        str(data_dir))
    page = html.read_text()
    assert 'data-errors="wemath"' in page and 'data-plot="errors-figure11-we-' in page
    assert 'id="f-error"' in page
    browser = json.loads(page.split('<script type="application/json" id="items-data">')[1]
                         .split("</script>")[0])
    shown_labels = {row[1]: row[10][LABELLER][0] for row in browser["rows"] if row[10]}
    assert shown_labels == labels


def test_a_sample_is_labelled_and_the_figures_say_so(fake_openai, wemath_run, data_dir, db):
    labeller = Labeller(WEMATH_TYPES, unreadable_every=None)
    fake_openai.reply = labeller
    small = json.loads(run("errors", "we", "--judge", LABELLER, "--db", str(db), "--sample",
                           "20", "--json").stdout)
    assert small["chosen"] <= 20 < small["wrong"] and small["asked"] == len(labeller.asked)
    # a larger sample adds to it: the first 20 are not asked again
    larger = json.loads(run("errors", "we", "--judge", LABELLER, "--db", str(db), "--sample",
                            "40", "--json").stdout)
    assert larger["chosen"] == 40 and larger["asked"] == len(labeller.asked) - small["asked"]
    assert len(set(labeller.asked)) == len(labeller.asked)
    report = json.loads(run("report", "--run-id", "we", "--db", str(db), "--json").stdout)
    (x,) = report["errors"]["labelled"]
    assert x["sample"] == 40 and x["n_labelled"] < x["n_wrong"]
    assert any("outside the seeded stratified sample (--sample 40)" in n
               for n in report["errors"]["notes"])


def test_bad_input_is_one_line_before_anything_is_asked(fake_openai, wemath_run, db):
    fake_openai.reply = Labeller(WEMATH_TYPES)
    for args, says in ((["nope"], "no run 'nope'"), (["we", "--sample", "0"], "--sample 0"),
                       (["we", "--grader", "nonesuch"], "nonesuch"),
                       (["we@judge:x"], "no run")):
        out = CliRunner().invoke(app, ["errors", *args, "--judge", LABELLER, "--db", str(db)])
        close_all()
        assert isinstance(out.exception, MathprobeError), (args, out.output)
        assert out.exception.exit_code == 2 and says in str(out.exception), args
    assert fake_openai.served == 0


def test_labels_go_to_people_and_come_back_with_kappa(fake_openai, wemath_run, data_dir, db,
                                                      tmp_path):
    fake_openai.reply = Labeller(WEMATH_TYPES, unreadable_every=None)
    run("errors", "we", "--judge", LABELLER, "--db", str(db), "--json")
    sheet = tmp_path / "sheet.csv"
    run("errors", "export-sheet", "we", "--db", str(db), "--out", str(sheet), "--sample", "30",
        "--data-dir", str(data_dir))
    with sheet.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert 0 < len(rows) <= 30
    assert all(r["error_type"] == "" and r["response"] and r["reference"] for r in rows)
    assert rows[0]["error_types"] == " | ".join(WEMATH_TYPES)
    model = dict(q(db, "SELECT item_id, error_type FROM error_labels WHERE labeler = ?",
                   [LABELLER]))
    # people agree with the model on most rows, say Visual Error on every fourth, leave two blank
    for k, r in enumerate(rows):
        r["error_type"] = ("" if k in (1, 2) else "visual error" if k % 4 == 0
                           else model.get(r["item_id"], "Hallucination"))
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = json.loads(run("errors", "import-sheet", str(filled), "--labeler", "people:ann",
                         "--db", str(db), "--json").stdout)
    people = {r["item_id"]: ("Visual Error" if r["error_type"] == "visual error"
                             else r["error_type"]) for r in rows if r["error_type"]}
    assert out["runs"]["we"] == {"labelled": len(people), "blank": 2}
    # the models' labels stay; the people's sit beside them
    assert dict(q(db, "SELECT item_id, error_type FROM error_labels WHERE labeler = ?",
                  [LABELLER])) == model
    (pair,) = out["agreement"]
    assert (pair["labeler_a"], pair["labeler_b"]) == (LABELLER, "people:ann")
    both = [(model[i], t) for i, t in people.items() if i in model]
    n = len(both)
    p_o = sum(a == b for a, b in both) / n
    ca, cb = Counter(a for a, _ in both), Counter(b for _, b in both)
    p_e = sum(ca[t] * cb[t] for t in set(ca) | set(cb)) / n / n
    assert pair["n_both"] == n and pair["agreement"] == pytest.approx(p_o)
    assert pair["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert sorted(map(tuple, pair["confusion"])) == sorted(
        (a, b, k) for (a, b), k in Counter(both).items())
    visual = next(t for t in pair["by_type"] if t["error_type"] == "Visual Error")
    assert visual["only_b"] == sum(1 for a, b in both if b == "Visual Error" != a)
    # the report shows the audit, and no longer says the types are only a model's
    report = json.loads(run("report", "--run-id", "we", "--db", str(db), "--json").stdout)
    assert report["errors"]["agreement"][0]["kappa"] == pytest.approx(pair["kappa"])
    assert not any("not audited against people" in n for n in report["errors"]["notes"])
    text = run("errors", "agreement", "we", "--db", str(db)).stdout
    assert "Cohen's kappa" in text and "confusion table" in text

    # a bad row: one error naming the file, row and field; nothing stored
    rows[4]["error_type"] = "Arithmetic Slip"
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out = CliRunner().invoke(app, ["errors", "import-sheet", str(bad), "--labeler", "people:bob",
                                   "--db", str(db)])
    close_all()
    assert out.exception.exit_code == 2
    assert str(out.exception).startswith(f"{bad}: row 6: field 'error_type': 'Arithmetic Slip'")
    assert q(db, "SELECT count(*) FROM error_labels WHERE labeler = 'people:bob'") == [(0,)]
    # people's labels never replace a labeller model's
    out = CliRunner().invoke(app, ["errors", "import-sheet", str(filled), "--labeler", LABELLER,
                                   "--db", str(db)])
    close_all()
    assert out.exception.exit_code == 2 and "name of their own" in str(out.exception)


def test_two_runs_are_compared_with_a_test_of_difference(fake_openai, wemath_run, data_dir,
                                                         db, tmp_path):
    """A second response set (the same questions, every answer written differently) labelled
    mostly Visual Error: `compare` shows both distributions side by side and Fisher's test."""
    other = [{**r, "response": r["response"] + " (second model)"} for r in wemath_run]
    (tmp_path / "other.json").write_text(json.dumps(other, ensure_ascii=False))
    run("import", str(tmp_path / "other.json"), "--benchmark", "wemath", "--format", "official",
        "--run-id", "we2", "--db", str(db), "--data-dir", str(data_dir))
    fake_openai.reply = Labeller(WEMATH_TYPES, unreadable_every=None,
                                 bias={"(second model)": "Visual Error"})
    run("errors", "we", "--judge", LABELLER, "--db", str(db), "--json")
    run("errors", "we2", "--judge", LABELLER, "--db", str(db), "--json")
    body = json.loads(run("compare", "--db", str(db), "we", "we2", "--json").stdout)
    (errors,) = body["errors"]
    (test,) = errors["tests"]
    assert (test["run_a"], test["run_b"], test["test"]) == ("we", "we2", "fisher")
    assert test["n_a"] >= errors["min_n"] and test["p_value"] < 0.001 and test["significant"]
    visual = next(t for t in test["by_type"] if t["error_type"] == "Visual Error")
    assert visual["share_b"] == 1.0 and visual["significant"]
    text = run("compare", "--db", str(db), "we", "we2").stdout
    assert "Fisher's exact test" in text and "Visual Error" in text
    # below the declared minimum n: not tested, and it says why
    run("errors", "we2", "--judge", "openai:other-labeller", "--db", str(db), "--sample", "5",
        "--json")
    run("errors", "we", "--judge", "openai:other-labeller", "--db", str(db), "--sample", "5",
        "--json")
    body = json.loads(run("compare", "--db", str(db), "we", "we2", "--json").stdout)
    small = next(t for t in body["errors"][0]["tests"] if t["labeler"] == "openai:other-labeller")
    assert small["test"] is None and "fewer than 20 labelled errors" in small["reason"]
    # the labellers' own runs are not compared as model runs
    everything = json.loads(run("compare", "--db", str(db), "--benchmark", "wemath",
                                "--json").stdout)
    assert set(everything["runs"]) == {"we", "we2"}


def test_cmmath_uses_its_own_taxonomy_and_rules_decide_reject_errors(fake_openai, data_dir, db,
                                                                     tmp_path):
    """CMMaTH (Figure 6): an empty answer is a Reject Error by rule, never sent to the
    labeller; the rest are labelled with the four CMMaTH types."""
    bench = registry.get("cmmath")
    types = list(bench.error_taxonomy.names)
    records = json.loads((data_dir / "cmmath" / "cmmath.json").read_text())[:40]
    for k, r in enumerate(records):
        r["response"] = "" if k % 8 == 0 else f"经计算，答案是 {k}。"
        r["output_correct"] = "Yes" if k % 10 == 5 else "No"
    # a problem the local sample lacks, defined by the file's own record: labelled all the same
    records.append({**records[1], "problem_id": "not-in-the-sample",
                    "question": records[1]["question"] + "（另一题）", "response": "答案是 7"})
    (tmp_path / "cm.json").write_text(json.dumps(records, ensure_ascii=False))
    run("import", str(tmp_path / "cm.json"), "--benchmark", "cmmath", "--format", "official",
        "--run-id", "cm", "--db", str(db), "--data-dir", str(data_dir))
    labeller = Labeller(types[:3], unreadable_every=None)
    fake_openai.reply = labeller
    result = json.loads(run("errors", "cm", "--judge", LABELLER, "--db", str(db), "--json").stdout)
    wrong = [r for r in records if r["output_correct"] == "No"]
    empty = [r for r in wrong if not r["response"]]
    assert result["grader"] == "authors_judge" and result["wrong"] == len(wrong)
    assert result["by_rule"] == len(empty) > 0
    assert result["asked"] == len(labeller.asked) == len(wrong) - len(empty)
    assert "Perception Error: the model's erroneous interpretation" in labeller.asked[0]
    assert any("（另一题）" in p for p in labeller.asked)
    reject = {i for (i,) in q(db, "SELECT item_id FROM error_labels WHERE error_type = "
                                  "'Reject Error' AND source = 'rules'")}
    assert reject == {r["problem_id"] for r in empty}
    report = json.loads(run("report", "--run-id", "cm", "--db", str(db), "--json").stdout)
    errors = report["errors"]
    assert errors["title"] == "CMMaTH Figure 6: the distribution of error types"
    (x,) = errors["labelled"]
    got = {t["error_type"]: (t["n"], t["n_by_rule"]) for t in x["types"]}
    assert list(got) == types and got["Reject Error"] == (len(empty), len(empty))
    assert sum(n for n, _ in got.values()) == x["n_labelled"] == len(wrong)


def test_conceptmath_table4_names_unmastered_concepts_with_an_example(fake_openai, data_dir, db):
    """ConceptMath (Table 4): the authors' published Llama-3-70B answers, their wrong answers
    labelled Calculation / Knowledge Error (or Other Error); Table 4 lists the unmastered
    concepts with each error type, its count and one example question and answer."""
    bench = registry.get("conceptmath")
    run("import", str(data_dir / "conceptmath" / "reference_llama3_70b" / "element_en.jsonl"),
        "--benchmark", "conceptmath", "--format", "official", "--run-id", "cmx", "--db", str(db),
        "--data-dir", str(data_dir))
    types = list(bench.error_taxonomy.names)
    assert types == ["Calculation Error", "Knowledge Error", "Other Error"]
    labeller = Labeller(types, unreadable_every=None)
    fake_openai.reply = labeller
    result = json.loads(run("errors", "cmx", "--judge", LABELLER, "--db", str(db), "--json",
                            "--concurrency", "64").stdout)
    assert result["labelled"] == result["wrong"] > 100
    assert "named in Table 4 without a definition in words" in labeller.asked[0]
    report = json.loads(run("report", "--run-id", "cmx", "--db", str(db), "--json").stdout)
    (x,) = report["errors"]["labelled"]
    table4 = next(f for f in x["figures"] if f["key"] == "table4")
    cols = [c for c, _ in table4["columns"]]
    rows = [dict(zip(cols, r)) for r in table4["rows"]]
    unmastered = {(s, c) for s, c in q(db, "SELECT system, concept FROM conceptmath_unmastered "
                                           "WHERE run_id = 'cmx' AND grader = 'official' AND "
                                           "level = 3 AND rank <= 10")}
    assert {(r["system"], r["concept"]) for r in rows} <= unmastered and len(rows) >= 10
    labels = dict(q(db, "SELECT item_id, error_type FROM error_labels WHERE run_id = 'cmx'"))
    items = {i: (c, qn) for i, c, qn in q(db, "SELECT item_id, concept, question FROM items "
                                              "WHERE benchmark = 'conceptmath'")}
    for r in rows:
        mine = sorted(i for i, t in labels.items() if t == r["error_type"]
                      and items[i][0] == r["concept"])
        assert r["n"] == len(mine) and r["question"] == items[mine[0]][1]
        assert r["answer"] == "the step that goes wrong"


def test_labels_travel_with_their_run_to_another_store(fake_openai, wemath_run, db, tmp_path):
    """`mathprobe store copy`: the labels come along on the copied answers' new ids, so the
    copy's error analysis is the original's; copying the labelled run alone keeps them too."""
    fake_openai.reply = Labeller(WEMATH_TYPES, unreadable_every=None)
    run("errors", "we", "--judge", LABELLER, "--db", str(db), "--json")
    want = json.loads(run("report", "--run-id", "we", "--db", str(db), "--json").stdout)["errors"]
    for name, only in (("all.duckdb", []), ("one.duckdb", ["--run-id", "we"])):
        copy = tmp_path / name              # holding answers already: the copies get new ids
        run("import", str(tmp_path / "responses.json"), "--benchmark", "wemath", "--format",
            "official", "--run-id", "before", "--db", str(copy))
        run("store", "copy", str(db), str(copy), *only)
        assert q(copy, "SELECT min(response_id) FROM responses WHERE run_id = 'we'") != q(
            db, "SELECT min(response_id) FROM responses WHERE run_id = 'we'")
        got = json.loads(run("report", "--run-id", "we", "--db", str(copy), "--json").stdout)
        if only:            # without the labeller's own run: the same labels, its costs unknown
            for x in (*want["labelled"], *got["errors"]["labelled"]):
                x.update(input_tokens=None, output_tokens=None, cost_usd=None, unlabelled=None)
        assert got["errors"] == want


def test_max_cost_stops_the_labeller_and_a_higher_cap_continues(fake_openai, wemath_run, db):
    labeller = Labeller(WEMATH_TYPES, unreadable_every=None)
    fake_openai.reply = labeller
    priced = "openai:gpt-4o-mini"                 # in the price table: its calls cost money
    out = json.loads(run("errors", "we", "--judge", priced, "--db", str(db), "--concurrency",
                         "1", "--max-cost", "0.0001", "--json", code=4).stdout)
    assert 0 < out["asked"] < out["chosen"] and out["not_asked"] == out["chosen"] - out[
        "asked"] - sum(out["unlabelled"].values())
    assert out["priced"] and 0.0001 <= out["cost_usd"] < 0.001
    rest = json.loads(run("errors", "we", "--judge", priced, "--db", str(db), "--json").stdout)
    assert rest["asked"] == out["not_asked"] and len(set(labeller.asked)) == len(labeller.asked)
    assert rest["labelled"] == out["chosen"] - sum(out["unlabelled"].values())
