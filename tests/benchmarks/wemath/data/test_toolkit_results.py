"""WE-MATH results made with VLMEvalKit and lmms-eval, imported from the files those tools
write, built here as they build them (see the readers' docstrings for the commits read):

* VLMEvalKit: the predictions `{model}_WeMath.xlsx` (pandas + xlsxwriter, as its `dump`), or
  `.tsv` (QUOTE_ALL), and the judged `{model}_WeMath_{judge}.xlsx` (columns lower-cased but the
  option letters, `ID` renamed back, plus `hit` and `log`);
* lmms-eval: `<date>_samples_wemath_testmini_reasoning.jsonl` (`--log_samples`), one sample per
  line with `target`, `filtered_resps`, `acc_score` and the question's row in `wemath_strict`.

The responses are the reference case's (data/wemath/reference_cases/v1), whose figures the
authors' scripts printed (v1_expected.json): the official grader on the imported predictions
must give exactly those. The toolkits' own verdicts are graders of their own beside it.
"""
from __future__ import annotations

import csv
import json
import string
from collections import defaultdict
from pathlib import Path

import pytest

from mathprobe import reports
from mathprobe.benchmarks.wemath import extract_official
from mathprobe.store import Store, close_all
from tests.support.cli import invoke
from tests.support.report import figure, value

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def reference(data_dir):
    ref = data_dir / "wemath" / "reference_cases"
    return (json.loads((ref / "v1_responses.json").read_text()),
            json.loads((ref / "v1_expected.json").read_text()))


def vlmevalkit_frame(rows: list[dict]) -> pd.DataFrame:
    """The WeMath rows as VLMEvalKit's predictions file holds them: its TSV's columns (index,
    question, the option letters, answer, and the WE-MATH fields its scorer reads: ID, key,
    knowledge concept, split) without the image, plus `prediction`."""
    records = []
    for k, r in enumerate(rows):
        options = {}
        for part in r["option"].split(";"):
            part = part.strip()
            if len(part) > 1 and part[0] in string.ascii_uppercase and part[1] in ".．":
                options[part[0]] = part[2:].strip()
        records.append({"index": k, "question": r["question"], **options, "answer": r["answer"],
                        "ID": r["ID"], "key": r["key"], "split": r["split"],
                        "knowledge concept": r["knowledge concept"],
                        "prediction": r["response"]})
    return pd.DataFrame(records)


def dump_xlsx(frame: pd.DataFrame, path: Path) -> Path:
    """VLMEvalKit's `dump` of an .xlsx."""
    with pd.ExcelWriter(path, engine="xlsxwriter",
                        engine_kwargs={"options": {"strings_to_formulas": False}}) as writer:
        frame.to_excel(writer, index=False)
    return path


def dump_tsv(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, sep="\t", index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    return path


def judged_frame(frame: pd.DataFrame, hits: list[int]) -> pd.DataFrame:
    """The judged file: mcq_vanilla_eval lower-cases every column but A-Z, WeMath renames
    `id` back to `ID`, and `hit` / `log` are added."""
    out = frame.copy()
    out.columns = [c if c in string.ascii_uppercase else c.lower() for c in out.columns]
    out = out.rename(columns={"id": "ID"})
    out["hit"] = hits
    out["log"] = ["Match Log: judged" for _ in hits]
    return out


def four_dimensional(verdicts: dict[str, bool]) -> dict[str, int]:
    """IK/IG/CM/RM counts from per-question verdicts (item id -> correct), by the paper's
    definitions, computed here independently of the views."""
    problems: dict[str, dict] = defaultdict(lambda: {"subs": [], "multi": None})
    for iid, ok in verdicts.items():
        pid, key = iid.split("/")
        if key.endswith("multi"):
            problems[pid]["multi"] = ok
        else:
            problems[pid]["subs"].append(ok)
    c = defaultdict(int)
    for p in problems.values():
        allsub, anysub, multi = all(p["subs"]), any(p["subs"]), p["multi"]
        c["ik"] += (not allsub) and not multi
        c["ig"] += allsub and not multi
        c["cm_strict"] += allsub and multi
        c["cm_loose"] += anysub and multi
        c["rm_strict"] += (not allsub) and multi
        c["rm_loose"] += (not anysub) and multi
    return dict(c)


def four_rows(store: Store, run_id: str, grader: str) -> dict[str, dict]:
    return {r["rule"]: r for r in store.query_dicts(
        "SELECT * FROM wemath_four_dimensional WHERE run_id = ? AND grader = ?", [run_id, grader])}


def assert_authors_figures(store: Store, run_id: str, expected: dict) -> None:
    four = four_rows(store, run_id, "official")
    counts = expected["counts"]
    assert four["strict"]["n"] == 525
    assert four["strict"]["ik"] == counts["InsufficientKnowledge"]
    assert four["strict"]["ig"] == counts["InadequateGeneralization"]
    assert four["strict"]["cm"] == counts["CompleteMastery_strict"]
    assert four["loose"]["cm"] == counts["CompleteMastery_loose"]
    assert four["strict"]["rm"] == counts["RoteMemorization_strict"]
    assert four["loose"]["rm"] == counts["RoteMemorization_loose"]
    assert four["strict"]["score"] == pytest.approx(expected["score_strict"], abs=1e-12)
    assert four["loose"]["score"] == pytest.approx(expected["score_loose"], abs=1e-12)
    rep = reports.build(store, run_id)
    ours = {"One-step(S1)": value(rep, "s1"), "Two-step(S2)": value(rep, "s2"),
            "Three-step(S3)": value(rep, "s3"),
            **{c: value(rep, f"category:{c}") for c in expected["accuracy_table"]
               if "step(" not in c}}
    for cell, text in expected["accuracy_table"].items():
        assert f"{100 * ours[cell]:.2f}%" == text, cell


@pytest.mark.parametrize("dump, name", [(dump_xlsx, "GPT4o_WeMath.xlsx"),
                                        (dump_tsv, "GPT4o_WeMath.tsv")])
def test_vlmevalkit_predictions_give_the_authors_figures(reference, data_dir, tmp_path, db,
                                                         dump, name):
    rows, expected = reference
    path = dump(vlmevalkit_frame(rows), tmp_path / name)
    out = invoke("import", str(path), "--benchmark", "wemath", "--format", "vlmevalkit",
                 "--run-id", "vk", "--db", str(db), "--data-dir", str(data_dir)).output
    assert "1740 rows" in out and "left out" not in out
    store = Store(db)
    assert_authors_figures(store, "vk", expected)
    rep = reports.build(store, "vk")
    assert rep["grader"] == "official"                   # the predictions file has no hit
    card = store.card_facts("vk")["import"]
    assert card["format"] == "vlmevalkit" and card["source"]["model"] == "GPT4o"
    assert card["source"]["file_kind"] == "predictions"


def test_vlmevalkit_judged_file_adds_its_judge_as_a_grader(reference, data_dir, tmp_path, db):
    """`hit` becomes grader vlmevalkit_judge: its figures are the four-dimensional metric of
    its verdicts, official (the default) stays the authors' figures, and the two differ on
    exactly the answers where `hit` and the authors' extraction differ."""
    rows, expected = reference
    official = [extract_official(r["response"]) == r["answer"] for r in rows]
    flipped = {k for k in range(len(rows)) if k % 9 == 0}     # where its judge read otherwise
    hits = [int(ok != (k in flipped)) for k, ok in enumerate(official)]
    path = dump_xlsx(judged_frame(vlmevalkit_frame(rows), hits),
                     tmp_path / "GPT4o_WeMath_gpt4o-mini.xlsx")
    invoke("import", str(path), "--benchmark", "wemath", "--format", "vlmevalkit", "--run-id",
           "vkj", "--db", str(db), "--data-dir", str(data_dir))
    store = Store(db)
    assert_authors_figures(store, "vkj", expected)
    assert reports.build(store, "vkj")["grader"] == "official"
    (differ,), = store.query(
        "SELECT count(*) FROM item_verdicts a JOIN item_verdicts b USING (run_id, item_id) "
        "WHERE run_id = 'vkj' AND a.grader = 'official' AND b.grader = 'vlmevalkit_judge' "
        "AND a.correct <> b.correct")
    assert differ == len(flipped)
    want = four_dimensional({f"{r['ID']}/{r['key']}": bool(h) for r, h in zip(rows, hits)})
    judge = four_rows(store, "vkj", "vlmevalkit_judge")
    assert (judge["strict"]["ik"], judge["strict"]["ig"], judge["strict"]["cm"],
            judge["strict"]["rm"], judge["loose"]["cm"], judge["loose"]["rm"]) == (
        want["ik"], want["ig"], want["cm_strict"], want["rm_strict"], want["cm_loose"],
        want["rm_loose"])
    # `report --grader vlmevalkit_judge` reports the judge's figures
    store.close()
    rep = json.loads(invoke("report", "--run-id", "vkj", "--db", str(db), "--grader",
                            "vlmevalkit_judge", "--json").stdout)
    assert rep["grader"] == "vlmevalkit_judge"
    assert figure(rep, "cm.strict")["count"] == want["cm_strict"]
    assert Store(db).card_facts("vkj")["import"]["source"]["judge"] == "gpt4o-mini"
    # `compare` shows both graders side by side: VLMEvalKit's judge against the official
    # extraction, agreeing on every answer but the flipped ones
    shown = {g["grader"]: g for g in json.loads(invoke(
        "compare", "--db", str(db), "vkj", "--json").stdout)["graders"]}
    assert shown["official"]["reported"] and not shown["vlmevalkit_judge"]["reported"]
    agree = shown["vlmevalkit_judge"]["agreement"]
    assert agree["n_both"] == len(rows) and agree["agreement"] == 1 - len(flipped) / len(rows)


def test_a_subset_is_scored_over_its_problems_and_the_n525_figure_is_shown(
        reference, data_dir, tmp_path, db):
    """A VLMEvalKit file of 40 problems: N = 40 from the data, and the report says what the
    tools that divide by 525 print for it; a failed call (VLMEvalKit's FAIL_MSG) is a failure,
    not a wrong answer, and leaves its problem out."""
    rows, _ = reference
    ids = list(dict.fromkeys(r["ID"] for r in rows))[:41]
    subset = [dict(r) for r in rows if r["ID"] in ids]
    failed_pid = ids[-1]
    for r in subset:
        if r["ID"] == failed_pid and r["key"].endswith("multi"):
            r["response"] = "Failed to obtain answer via API."
    path = dump_xlsx(vlmevalkit_frame(subset), tmp_path / "m_WeMath.xlsx")
    out = invoke("import", str(path), "--benchmark", "wemath", "--format", "vlmevalkit",
                 "--run-id", "sub", "--db", str(db), "--data-dir", str(data_dir)).output
    assert "1 failed calls" in out
    store = Store(db)
    four = four_rows(store, "sub", "official")
    assert four["strict"]["n"] == 40
    n525 = {r["rule"]: r for r in store.query_dicts(
        "SELECT * FROM wemath_four_dimensional_n525 WHERE run_id = 'sub' AND grader = 'official'")}
    for rule in ("strict", "loose"):
        f = four[rule]
        assert n525[rule]["score"] == pytest.approx((525 - 0.5 * f["ig"] - f["rm"] - f["ik"]) / 525)
        assert n525[rule]["ik_rate"] == pytest.approx(f["ik"] / 525)
        assert f["score"] == pytest.approx((0.5 * f["ig"] + f["cm"]) / 40)
    assert n525["strict"]["score"] > 0.9 > four["strict"]["score"]   # 485 absent problems "mastered"
    store.close()
    text = invoke("report", "--run-id", "sub", "--db", str(db)).stdout
    flat = " ".join(text.split())
    assert "N = 40 problems (from the data)" in flat and "divide by N = 525" in flat
    assert f"{100 * n525['strict']['score']:.2f} strict" in flat
    (status,), = Store(db).query("SELECT status FROM current_responses WHERE run_id = 'sub' AND "
                             "item_id = ?", [f"{failed_pid}/{subset[-1]['key']}"])
    assert status == "infra_failed"


def test_vlmevalkit_rows_that_do_not_fit_testmini_are_listed(reference, data_dir, tmp_path, db):
    rows, _ = reference
    frame = vlmevalkit_frame(rows[:8])
    frame.loc[1, "answer"] = "Z"
    frame.loc[2, "ID"] = "9steps_1"
    frame = pd.concat([frame, frame.iloc[[3]]], ignore_index=True)
    path = dump_xlsx(frame, tmp_path / "m_WeMath.xlsx")
    out = invoke("import", str(path), "--benchmark", "wemath", "--format", "vlmevalkit",
                 "--run-id", "bad", "--db", str(db), "--data-dir", str(data_dir)).output
    assert "3 row(s) left out:" in out
    assert "row 3 (" in out and "answer 'Z' differs" in out           # the header is row 1
    assert "row 4 (9steps_1/" in out and "no such question" in out
    assert "row 10 (" in out and "appears twice (also row 5)" in out


def lmms_eval_samples(rows: list[dict], scores: list[float], path: Path) -> Path:
    """What lmms-eval's save_results_samples writes for wemath_testmini_reasoning: the doc is
    dropped, the WE-MATH row rides in the wemath_loose / wemath_strict metric values."""
    with path.open("w", encoding="utf-8") as f:
        for k, (r, score) in enumerate(zip(rows, scores)):
            data = {"ID": r["ID"], "split": r["split"], "knowledge concept": r["knowledge concept"],
                    "question": r["question"], "option": r["option"], "answer": r["answer"],
                    "key": r["key"], "question number": r["question number"],
                    "knowledge concept description": r["knowledge concept description"],
                    "acc_score": score}
            sample = {"doc_id": k, "target": str(r["answer"]), "filtered_resps": r["response"],
                      "token_counts": [None], "doc_hash": f"{k:064x}",
                      "input": r["question"] + "\n" + r["option"], "acc_score": score,
                      "format_score": 1.0, "wemath_loose": data, "wemath_strict": data}
            f.write(json.dumps(sample, ensure_ascii=False) + "\n")
    return path


def test_lmms_eval_samples_give_the_authors_figures(reference, data_dir, tmp_path, db):
    rows, expected = reference
    official = [extract_official(r["response"]) == r["answer"] for r in rows]
    scores = [float(ok != (k % 11 == 0)) for k, ok in enumerate(official)]
    path = lmms_eval_samples(rows, scores, tmp_path /
                             "20260806_120000_samples_wemath_testmini_reasoning.jsonl")
    invoke("import", str(path), "--benchmark", "wemath", "--format", "lmms-eval", "--run-id",
           "lm", "--db", str(db), "--data-dir", str(data_dir))
    store = Store(db)
    assert_authors_figures(store, "lm", expected)
    (differ,), = store.query(
        "SELECT count(*) FROM item_verdicts a JOIN item_verdicts b USING (run_id, item_id) "
        "WHERE run_id = 'lm' AND a.grader = 'official' AND b.grader = 'lmms_eval' "
        "AND a.correct <> b.correct")
    assert differ == len(range(0, len(rows), 11))
    source = store.card_facts("lm")["import"]["source"]
    assert source["tool"] == "lmms-eval" and source["task"] == "wemath_testmini_reasoning"
    close_all()
