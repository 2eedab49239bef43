"""Intervals honest at the edges: `compare --json` of runs at the boundary (nothing right,
everything right, one question, identical answers) gives every figure and every difference an
interval of positive width that holds its value, named by its method; shares of independent
items get scipy's Wilson interval, paired items Tango's score interval; many figures' p-values
are adjusted by Benjamini-Hochberg within their table, and significance follows the adjusted
one."""
from __future__ import annotations

import json
import re
from collections import Counter

import numpy as np
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from mathprobe import registry
from mathprobe.cli.main import app
from mathprobe.reports import intervals
from mathprobe.runs import import_official
from mathprobe.store import open_store


@pytest.fixture(scope="module")
def edge_store(tmp_path_factory, data_dir):
    """WE-MATH: one two-step problem answered all wrong ('we-wrong') and all right
    ('we-right', and its copy). ConceptMath: the problems of one element_en concept whose
    answers are plain numbers answered all wrong ('cm-wrong'), all right ('cm-right', and its
    copy), and one problem of it alone, right ('cm-one')."""
    tmp = tmp_path_factory.mktemp("edges")
    db = tmp / "edges.duckdb"
    store = open_store(db)
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    pid = next(r["ID"] for r in rows if r["key"] == "2steps_multi")
    problem = [r for r in rows if r["ID"] == pid]
    wrong = {r["key"]: next(c for c in "ABCDE" if c != r["answer"]) for r in problem}

    def load(bench: str, run_id: str, data: list[dict], suffix: str) -> None:
        path = tmp / f"{run_id}{suffix}"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data)
                        if suffix == ".jsonl" else json.dumps(data, ensure_ascii=False))
        import_official(store, registry.get(bench), data_dir, path, run_id)

    load("wemath", "we-wrong", [{**r, "response": f"<Answer>: <<{wrong[r['key']]}>>"}
                                for r in problem], ".json")
    for run_id in ("we-right", "we-right-copy"):
        load("wemath", run_id, [{**r, "response": f"<Answer>: <<{r['answer']}>>"}
                                for r in problem], ".json")
    cm = [json.loads(line) for line in
          (data_dir / "conceptmath" / "element_en.jsonl").read_text().splitlines()]
    plain = {r["cate2"]: True for r in cm}            # concepts whose answers are all numbers
    for r in cm:
        plain[r["cate2"]] &= bool(re.fullmatch(r"-?\d+(\.\d+)?", str(r["answer"]).strip()))
    concept = next(c for c, _ in Counter((r["cate0"], r["cate1"], r["cate2"]) for r in cm
                                         ).most_common() if plain[c[2]])
    under = [r for r in cm if (r["cate0"], r["cate1"], r["cate2"]) == concept]
    load("conceptmath", "cm-wrong", [{**r, "response": "The answer is -987654321."}
                                     for r in under], ".jsonl")
    for run_id in ("cm-right", "cm-right-copy"):
        load("conceptmath", run_id, [{**r, "response": f"The answer is {r['answer']}."}
                                     for r in under], ".jsonl")
    one = {**under[0], "response": f"The answer is {under[0]['answer']}."}
    load("conceptmath", "cm-one", [one], ".jsonl")
    return db, "L3:element_en:" + "/".join(concept), len(under)


def compare_json(db, *runs: str) -> dict:
    out = CliRunner().invoke(app, ["compare", "--db", str(db), "--json", *runs])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def assert_honest(out: dict) -> int:
    """Every figure and difference with n > 0: ci_low < ci_high, holding its value."""
    checked = 0
    for run in out["runs"].values():
        for key, f in run["figures"].items():
            if f["n"] > 0:
                assert f["ci_low"] < f["ci_high"], (key, f)
                assert f["ci_low"] <= f["value"] <= f["ci_high"], (key, f)
                assert f["ci_method"] in ("wilson", "bootstrap", "wilson-units"), (key, f)
                checked += 1
    for d in out["differences"]:
        if d["n"] > 0:
            assert d["ci_low"] < d["ci_high"] and d["ci_low"] <= d["diff"] <= d["ci_high"], d
            assert d["ci_method"] in ("tango", "bootstrap", "tango-units"), d
            checked += 1
    return checked


@pytest.mark.parametrize("runs", [("we-wrong", "we-right"), ("we-right", "we-right-copy"),
                                  ("cm-wrong", "cm-right"), ("cm-right", "cm-one"),
                                  ("cm-right", "cm-right-copy")])
def test_every_interval_has_width_and_holds_its_value(edge_store, runs):
    db, _, _ = edge_store
    out = compare_json(db, *runs)
    assert assert_honest(out) >= 5
    concept_diffs = [d for d in out["differences"]
                     if d["family"] in ("concepts", "concepts-l1", "concepts-l2", "concepts-l3")]
    assert concept_diffs
    assert all(d["p_adjusted"] is not None and d["p_adjusted"] >= d["p_value"]
               for d in concept_diffs)


def test_a_share_at_zero_and_at_one_gets_scipys_wilson_interval(edge_store):
    db, concept, n = edge_store
    out = compare_json(db, "cm-wrong", "cm-right", "cm-one")
    zero = out["runs"]["cm-wrong"]["figures"][concept]
    one = out["runs"]["cm-right"]["figures"][concept]
    single = out["runs"]["cm-one"]["figures"][concept]
    assert (zero["count"], single["count"]) == (0, 1)
    right = int(one["count"])
    assert right == n
    for f, k, size in ((zero, 0, n), (one, right, n), (single, 1, 1)):
        ci = sps.binomtest(k, size).proportion_ci(0.95, method="wilson")
        assert (f["n"], f["ci_method"]) == (size, "wilson")
        assert (f["ci_low"], f["ci_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert zero["value"] == 0 and zero["ci_high"] > 0.15        # 0 of 12+: not certainty
    assert single["ci_low"] < 0.25                               # 1 of 1: hardly anything
    # the difference of the same items, all wrong then all right: Tango's interval, whose
    # lower bound for n of n pairs discordant one way solves n (1 - d) = z^2 (1 + d)
    (d,) = [d for d in out["differences"] if d["run_b"] == "cm-right" and d["stat"] == concept]
    assert (d["test"], d["ci_method"], d["only_a"], d["only_b"]) == ("mcnemar", "tango", 0,
                                                                     right)
    assert d["diff"] == 1 and d["ci_high"] == pytest.approx(1)
    z2 = 1.959963984540054 ** 2
    assert d["ci_low"] == pytest.approx((n - z2) / (n + z2), abs=1e-9)
    assert d["better"] == "higher" and d["improved"] is True


def test_clustered_figures_fall_back_at_the_boundary(edge_store):
    """WE-MATH resamples whole problems: S1 of one problem all wrong (its two one-step
    questions travel together) has bootstrap resamples that are all equal; it then gets the
    Wilson interval at its estimate over its one unit. IK, one per problem, is a share of
    independent problems: Wilson's interval of 1 of 1."""
    db, _, _ = edge_store
    f = compare_json(db, "we-wrong")["runs"]["we-wrong"]["figures"]
    one_unit = sps.binomtest(0, 1).proportion_ci(0.95, method="wilson")
    assert (f["s1"]["value"], f["s1"]["n"], f["s1"]["ci_method"]) == (0, 2, "wilson-units")
    assert (f["s1"]["ci_low"], f["s1"]["ci_high"]) == (0, pytest.approx(one_unit.high))
    assert (f["ik"]["value"], f["ik"]["ci_method"]) == (1, "wilson")
    assert f["ik"]["ci_low"] == pytest.approx(1 - one_unit.high)
    assert f["score.strict"]["value"] == 0 and f["score.strict"]["ci_high"] > 0.5


def test_identical_answers_differ_by_an_interval_around_zero(edge_store):
    db, concept, n = edge_store
    out = compare_json(db, "cm-right", "cm-right-copy")
    (d,) = [d for d in out["differences"] if d["stat"] == concept]
    assert d["diff"] == 0 and d["p_value"] == 1 and not d["significant"]
    bound = 1.959964 ** 2 / (n + 1.959964 ** 2)                # Tango at 0 discordant of n
    assert (d["ci_low"], d["ci_high"]) == (pytest.approx(-bound, rel=1e-5),
                                           pytest.approx(bound, rel=1e-5))


def test_wilson_and_tango_against_published_values():
    for k, n in [(0, 1), (0, 12), (3, 12), (12, 12), (300, 1215)]:
        ci = sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert np.allclose(intervals.wilson(k, n, 0.95), (ci.low, ci.high), atol=1e-12)
    # Fagerland, Lydersen & Laake (2013), Table 7: Bentur et al.'s paired data (n = 21; 1 and
    # 7 discordant pairs), Tango's asymptotic score interval -0.517 to -0.026
    lo, hi = intervals.tango(1, 7, 21, 0.95)
    assert (round(float(lo), 3), round(float(hi), 3)) == (-0.517, -0.026)
    # the bounds solve |score| = z: scanning a fine grid finds the same
    grid = np.linspace(-0.999, 0.999, 400_001)
    inside = grid[np.abs(intervals._tango_score(grid, 10.0, 4.0, 1215.0)) <= 1.959963984540054]
    lo, hi = intervals.tango(10, 4, 1215, 0.95)
    assert (lo, hi) == (pytest.approx(inside.min(), abs=1e-5),
                        pytest.approx(inside.max(), abs=1e-5))


def test_p_values_are_adjusted_within_each_table(results):
    out = CliRunner().invoke(app, ["compare", "--db", str(results.db), "--json", "v1",
                                   "v1-perturbed"])
    diffs = json.loads(out.stdout)["differences"]
    families: dict[str, list[dict]] = {}
    for d in diffs:
        families.setdefault(d["family"], []).append(d)
    assert len(families["concepts"]) == 67 and {d["family_size"] for d in
                                                families["concepts"]} == {67}
    for family, ds in families.items():
        want = sps.false_discovery_control([d["p_value"] for d in ds], method="bh")
        assert [d["p_adjusted"] for d in ds] == pytest.approx(list(want)), family
        for d in ds:
            assert d["significant"] is (d["p_adjusted"] < 0.05)
    # the perturbation's one-step flips: S1's raw p is small; lower IK is better
    (ik,) = [d for d in diffs if d["stat"] == "ik"]
    assert ik["better"] == "lower"
    assert ik["improved"] is (None if ik["diff"] == 0 else ik["diff"] < 0)
