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

    four = report["four_dimensional"]
    strict, loose = four["strict"], four["loose"]
    counts = expected["counts"]
    assert strict["n"] == loose["n"] == 525
    assert strict["ik"] == loose["ik"] == counts["InsufficientKnowledge"]
    assert strict["ig"] == loose["ig"] == counts["InadequateGeneralization"]
    assert strict["cm"] == counts["CompleteMastery_strict"]
    assert loose["cm"] == counts["CompleteMastery_loose"]
    assert strict["rm"] == counts["RoteMemorization_strict"]
    assert loose["rm"] == counts["RoteMemorization_loose"]
    assert math.isclose(strict["score"], expected["score_strict"], abs_tol=1e-12)
    assert math.isclose(loose["score"], expected["score_loose"], abs_tol=1e-12)
    assert math.isclose(strict["rm_rate"], expected["rm_strict_rate"], abs_tol=1e-12)
    assert math.isclose(loose["rm_rate"], expected["rm_loose_rate"], abs_tol=1e-12)

    acc = report["accuracy"]
    ours = {"One-step(S1)": acc["s1"], "Two-step(S2)": acc["s2"], "Three-step(S3)": acc["s3"],
            **acc["categories"]}
    assert set(ours) == set(expected["accuracy_table"])
    for cell, text in expected["accuracy_table"].items():
        assert f"{100 * ours[cell]:.2f}%" == text, cell
    # Table 1's columns in the paper's order (that of the authors' evaluation/accuracy.py)
    assert list(acc["categories"]) == PAPER_TABLE1_CATEGORIES
    assert report["problems"]["incomplete"] == 0
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
