"""The authors' own figures for a reference response set, reproduced through the command line
(in this process, typer's runner, where a command succeeds; the failing one as its own process,
for its exit status and error line)."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import invoke as mathprobe
from tests.support.report import figure, figures

CASES = ["v1"]


def mathprobe_process(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "mathprobe.cli.main", *args]
    return subprocess.run(cmd, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)


@pytest.mark.parametrize("case", CASES)
def test_reference_case_reproduces_the_authors_figures(case, data_dir, db):
    ref = data_dir / "wemath" / "reference_cases"
    expected = json.loads((ref / f"{case}_expected.json").read_text())
    mathprobe("import", "--benchmark", "wemath", "--format", "official",
              str(ref / f"{case}_responses.json"), "--run-id", case, "--db", str(db),
              "--data-dir", str(data_dir))
    report = json.loads(mathprobe("report", "--run-id", case, "--db", str(db), "--json").stdout)

    def fig(key):
        return figure(report, key)
    counts = expected["counts"]
    assert fig("score.strict")["n"] == fig("score.loose")["n"] == 525
    assert fig("ik")["count"] == counts["InsufficientKnowledge"]
    assert fig("ig")["count"] == counts["InadequateGeneralization"]
    assert fig("cm.strict")["count"] == counts["CompleteMastery_strict"]
    assert fig("cm.loose")["count"] == counts["CompleteMastery_loose"]
    assert fig("rm_rate.strict")["count"] == counts["RoteMemorization_strict"]
    assert fig("rm_rate.loose")["count"] == counts["RoteMemorization_loose"]
    assert math.isclose(fig("score.strict")["value"], expected["score_strict"], abs_tol=1e-12)
    assert math.isclose(fig("score.loose")["value"], expected["score_loose"], abs_tol=1e-12)
    assert math.isclose(fig("rm_rate.strict")["value"], expected["rm_strict_rate"], abs_tol=1e-12)
    assert math.isclose(fig("rm_rate.loose")["value"], expected["rm_loose_rate"], abs_tol=1e-12)

    table1 = figures(report, "table1")
    ours = {"One-step(S1)": table1["s1"]["value"], "Two-step(S2)": table1["s2"]["value"],
            "Three-step(S3)": table1["s3"]["value"],
            **{k.removeprefix("category:"): f["value"] for k, f in table1.items()
               if k.startswith("category:")}}
    assert set(ours) == set(expected["accuracy_table"])
    for cell, text in expected["accuracy_table"].items():
        assert f"{100 * ours[cell]:.2f}%" == text, cell
    # Table 1's columns in the paper's order (that of the authors' evaluation/accuracy.py)
    assert [k.removeprefix("category:") for k in table1 if k.startswith("category:")] == \
        PAPER_TABLE1_CATEGORIES
    assert report["notes"] == []            # every problem answered whole, N = 525
    text = mathprobe("report", "--run-id", case, "--db", str(db)).stdout
    heads = ["S1", "S2", "S3", "UCU", "AL", "CPF", "UPF", "CSF", "USF", "BTF", "CCF", "Dir",
             "Pos", "RoM", "CCP"]
    at = [text.index(f" {h} ") for h in heads]
    assert at == sorted(at), text


PAPER_TABLE1_CATEGORIES = [
    "Understanding and Conversion of Units", "Angles and Length", "Calculation of Plane Figures",
    "Understanding of Plane Figures", "Calculation of Solid Figures",
    "Understanding of Solid Figures", "Basic Transformations of Figures",
    "Cutting and Combining of Figures", "Direction", "Position", "Route Map",
    "Correspondence of Coordinates and Positions"]


def test_reimport_is_idempotent(data_dir, db):
    src = str(data_dir / "wemath" / "reference_cases" / "v1_responses.json")
    args = ["import", "--benchmark", "wemath", "--format", "official", src, "--run-id", "v1",
            "--db", str(db), "--data-dir", str(data_dir)]
    first = mathprobe(*args)
    assert "1740 new responses" in first.stderr
    before = mathprobe("report", "--run-id", "v1", "--db", str(db), "--json").stdout
    second = mathprobe(*args)
    assert "0 new responses, 1740 already stored" in second.stderr
    after = mathprobe("report", "--run-id", "v1", "--db", str(db), "--json").stdout
    assert json.loads(before) == json.loads(after)

    import duckdb
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM responses").fetchone()[0] == 1740
    assert con.execute("SELECT count(*) FROM verdicts").fetchone()[0] == 1740
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    con.close()


def test_report_on_unknown_run_names_the_runs_there(data_dir, db):
    src = str(data_dir / "wemath" / "reference_cases" / "v1_responses.json")
    mathprobe("import", "--benchmark", "wemath", "--format", "official", src, "--run-id", "v1",
              "--db", str(db), "--data-dir", str(data_dir))
    out = mathprobe_process("report", "--run-id", "nope", "--db", str(db))
    assert out.returncode == 2
    assert "no run 'nope'" in out.stderr and "v1" in out.stderr
