"""Exports of a WE-MATH run for other tools: the authors' leaderboard submission (their result
JSON and their two score CSVs, evaluation/four_dimensional_metrics.py and accuracy.py), and
VLMEvalKit's score CSV; the run card goes beside them. Importing the result JSON back gives the
same figures, and `compare --csv` / `--parquet` carry every figure with its interval."""
from __future__ import annotations

import csv
import json

import duckdb
import pytest

from mathprobe.store import Store
from tests.support.cli import invoke

FIGURE_VIEWS = ("wemath_four_dimensional", "wemath_step_accuracy", "wemath_category_accuracy",
                "wemath_concept_accuracy")


@pytest.fixture
def imported(data_dir, db):
    ref = data_dir / "wemath" / "reference_cases"
    invoke("import", str(ref / "v1_responses.json"), "--benchmark", "wemath", "--run-id", "v1",
           "--db", str(db), "--data-dir", str(data_dir))
    return json.loads((ref / "v1_expected.json").read_text())


def figures(db, run_id: str) -> dict[str, list]:
    store = Store(db)
    try:
        return {v: store.query(f"SELECT * EXCLUDE (run_id) FROM {v} WHERE run_id = ? ORDER BY ALL",
                               [run_id]) for v in FIGURE_VIEWS}
    finally:
        store.close()


def read_csv(path):
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_leaderboard_files_match_the_authors_layout_and_reimport(imported, data_dir, db, tmp_path):
    expected = imported
    out = tmp_path / "submit"
    done = invoke("export", "v1", "--db", str(db), "--format", "leaderboard", "--out", str(out),
                  "--data-dir", str(data_dir))
    assert "wrote 5 file(s)" in done.output and "note:" not in done.output
    # the result JSON: testmini's rows, with their fields in testmini's order, plus response
    rows = json.loads((out / "v1.json").read_text(encoding="utf-8"))
    testmini = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    assert len(rows) == len(testmini) == 1740
    assert [list(r) for r in rows] == [[*t, "response"] for t in testmini]
    original = {(r["ID"], r["key"]): r["response"] for r in json.loads(
        (data_dir / "wemath" / "reference_cases" / "v1_responses.json").read_text())}
    assert all(r["response"] == (original[(r["ID"], r["key"])] or "") for r in rows)
    # their score CSVs, as their scripts print them for these responses
    counts = expected["counts"]
    four = read_csv(out / "four_dimensional_metrics.csv")
    assert four[0] == ["Model", "Score (Strict)", "InsufficientKnowledge (Strict)",
                       "InadequateGeneralization (Strict)", "CompleteMastery (Strict)",
                       "RoteMemorization (Strict)", "Score (Loose)",
                       "InsufficientKnowledge (Loose)", "InadequateGeneralization (Loose)",
                       "CompleteMastery (Loose)", "RoteMemorization (Loose)"]
    ik, ig = counts["InsufficientKnowledge"], counts["InadequateGeneralization"]
    cms, cml = counts["CompleteMastery_strict"], counts["CompleteMastery_loose"]
    rms, rml = counts["RoteMemorization_strict"], counts["RoteMemorization_loose"]
    assert four[1] == [
        "import:v1_responses.json", "{:.2%}".format(expected["score_strict"]),
        f"{ik / 525:.2%} ({ik})", f"{ig / 525:.2%} ({ig})", f"{cms / 525:.2%} ({cms})",
        f"{expected['rm_strict_rate']:.2%} ({rms})", "{:.2%}".format(expected["score_loose"]),
        f"{ik / 525:.2%} ({ik})", f"{ig / 525:.2%} ({ig})", f"{cml / 525:.2%} ({cml})",
        f"{expected['rm_loose_rate']:.2%} ({rml})"]
    acc = read_csv(out / "accuracy.csv")
    assert acc[0][:4] == ["Model", "One-step(S1)", "Two-step(S2)", "Three-step(S3)"]
    assert acc[0][4:] == ["Understanding and Conversion of Units", "Angles and Length",
                          "Calculation of Plane Figures", "Understanding of Plane Figures",
                          "Calculation of Solid Figures", "Understanding of Solid Figures",
                          "Basic Transformations of Figures", "Cutting and Combining of Figures",
                          "Direction", "Position", "Route Map",
                          "Correspondence of Coordinates and Positions"]
    assert dict(zip(acc[0][1:], acc[1][1:])) == expected["accuracy_table"]
    # the card beside them
    card = json.loads((out / "v1.card.json").read_text())
    assert card["import"]["file"] == "v1_responses.json" and len(card["import"]["sha256"]) == 64
    assert (out / "v1.card.md").read_text().startswith("# Run card: v1")
    # the result JSON imported back: the same figures, every one of them
    invoke("import", str(out / "v1.json"), "--benchmark", "wemath", "--run-id", "again",
           "--db", str(db), "--data-dir", str(data_dir))
    assert figures(db, "again") == figures(db, "v1")


def test_vlmevalkit_score_csv(imported, data_dir, db, tmp_path):
    expected = imported
    invoke("export", "v1", "--db", str(db), "--format", "vlmevalkit", "--out", str(tmp_path),
           "--data-dir", str(data_dir))
    path = tmp_path / "v1_WeMath_official_score.csv"
    text = path.read_text(encoding="utf-8")
    assert text.startswith('"Model","Score (Strict)",')       # QUOTE_ALL, as VLMEvalKit dumps
    head, row = read_csv(path)
    assert len(head) == 1 + 10 + 3 + 12
    cells = dict(zip(head, row))
    assert cells["Model"] == ""                                # VLMEvalKit leaves it empty
    assert cells["Score (Strict)"] == "{:.2%}".format(expected["score_strict"])
    assert {k: cells[k] for k in expected["accuracy_table"]} == expected["accuracy_table"]


def test_compare_csv_and_parquet_hold_every_figure_with_its_interval(imported, data_dir, db,
                                                                     tmp_path):
    ref = data_dir / "wemath" / "reference_cases" / "v1_responses.json"
    rows = json.loads(ref.read_text())
    for r in rows[::5]:
        r["response"] = "<Answer>: Z"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(rows))
    invoke("import", str(other), "--benchmark", "wemath", "--run-id", "v2", "--db", str(db),
           "--data-dir", str(data_dir))
    csv_path, pq_path = tmp_path / "f.csv", tmp_path / "f.parquet"
    invoke("compare", "v1", "v2", "--db", str(db), "--csv", str(csv_path), "--parquet",
           str(pq_path), "--resamples", "200")
    with csv_path.open(newline="", encoding="utf-8") as f:
        from_csv = list(csv.DictReader(f))
    con = duckdb.connect()
    got = con.execute(f"SELECT * FROM read_parquet('{pq_path}')").fetchall()
    names = [d[0] for d in con.description]
    types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "
                             f"read_parquet('{pq_path}'))").fetchall())
    con.close()
    assert len(got) == len(from_csv) > 100
    assert types["value"] == "DOUBLE" and types["n"] == "BIGINT" and types["significant"] == "BOOLEAN"
    kinds = {r[names.index("kind")] for r in got}
    assert kinds == {"figure", "difference"}
    for row, line in zip(got, from_csv):
        rec = dict(zip(names, row))
        assert rec["figure"] == line["figure"] and rec["run_id"] == line["run_id"]
        assert rec["value"] == pytest.approx(float(line["value"]))
        if line["ci_low"]:
            assert rec["ci_low"] == pytest.approx(float(line["ci_low"]))
    figs = [dict(zip(names, r)) for r in got if r[0] == "figure"]
    assert all(f["ci_low"] is not None and f["ci_low"] <= f["value"] <= f["ci_high"]
               for f in figs if f["value"] is not None and f["ci_low"] is not None)
    assert {f["run_id"] for f in figs} == {"v1", "v2"}
