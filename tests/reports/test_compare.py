"""`mathprobe compare` on imported reference runs: the figures are the views' numbers, every
interval holds its estimate and narrows with n, identical runs differ by nothing, a perturbed
copy gives exactly the McNemar counts of its perturbation, and the KCA transition matrix counts
every problem once."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from mathprobe.benchmarks import wemath
from mathprobe.cli.main import app
from mathprobe.reports import compare, stats
from tests.reports.conftest import N_RIGHT, N_WRONG

RUNS = ["v1", "v1-copy", "v1-perturbed", "v1-sub", "cm-zs", "cm-fs", "cmm-a"]


def cli_json(results, *args: str) -> dict:
    out = CliRunner().invoke(app, ["compare", "--db", str(results.db), "--json", *args])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def everything(results):
    return compare.compare(results.store, RUNS)


def figures(result, run_id):
    return next(b.figures[run_id] for b in result.benchmarks if run_id in b.figures)


def test_the_figures_are_the_views_numbers(results, everything):
    q = results.store.query_dicts
    f = figures(everything, "v1")
    for row in q("SELECT * FROM wemath_four_dimensional WHERE run_id = 'v1'"):
        rule = row["rule"]
        assert f[f"score.{rule}"].value == pytest.approx(row["score"], abs=1e-12)
        assert f[f"cm.{rule}"].count == row["cm"] and f[f"cm.{rule}"].n == row["n"] == 525
        assert f[f"rm_rate.{rule}"].value == pytest.approx(row["rm_rate"], abs=1e-12)
        assert (f["ik"].count, f["ig"].count) == (row["ik"], row["ig"])
    (steps,) = q("SELECT s1, s2, s3 FROM wemath_step_accuracy WHERE run_id = 'v1'")
    assert {k: f[k].value for k in steps} == pytest.approx(steps, abs=1e-12)
    cats = q("SELECT category, accuracy FROM wemath_category_accuracy WHERE run_id = 'v1'")
    assert len(cats) == 12
    for c in cats:
        assert f[f"category:{c['category']}"].value == pytest.approx(c["accuracy"], abs=1e-12)
    leaves = q("SELECT concept, n, accuracy FROM wemath_concept_accuracy WHERE run_id = 'v1'")
    assert len(leaves) == 67
    for c in leaves:
        e = f[f"concept:{c['concept']}"]
        assert (e.n, e.value) == (c["n"], pytest.approx(c["accuracy"], abs=1e-12))
    # ... and the authors' published figures for this response set
    expected = json.loads((results.data_dir / "wemath" / "reference_cases" /
                           "v1_expected.json").read_text())
    assert f["score.strict"].value == pytest.approx(expected["score_strict"], abs=1e-12)

    cm = figures(everything, "cm-zs")
    for row in q("SELECT level, system, concept, n, accuracy FROM conceptmath_concept_accuracy "
                 "WHERE run_id = 'cm-zs' AND grader = 'official'"):
        e = cm[f"L{row['level']}:{row['system']}:{row['concept']}"]
        assert (e.n, e.value) == (row["n"], pytest.approx(row["accuracy"], abs=1e-12))
    (acc,) = q("SELECT n, accuracy FROM conceptmath_run_accuracy WHERE run_id = 'cm-zs' AND "
               "grader = 'official'")
    assert (cm["all"].n, cm["all"].value) == (acc["n"], pytest.approx(acc["accuracy"]))

    cmm = figures(everything, "cmm-a")
    paper = q("SELECT answer_type, n, correct, accuracy FROM cmmath_paper_accuracy "
              "WHERE run_id = 'cmm-a' AND grader = 'rules'")
    assert len(paper) == 3
    for row in paper:
        key = "all" if row["answer_type"] == "all" else f"type:{row['answer_type']}"
        assert (cmm[key].n, cmm[key].count) == (row["n"], row["correct"])
        assert cmm[key].value == pytest.approx(row["accuracy"])
    for row in q("SELECT grade_group, accuracy FROM cmmath_paper_grade_accuracy "
                 "WHERE run_id = 'cmm-a'"):
        assert cmm[f"grade:{row['grade_group']}"].value == pytest.approx(row["accuracy"])
    for row in q("SELECT category, accuracy FROM cmmath_paper_category_accuracy "
                 "WHERE run_id = 'cmm-a'"):
        assert cmm[f"subject:{row['category']}"].value == pytest.approx(row["accuracy"])
    ssr = q("SELECT alpha, n_points, ssr FROM cmmath_paper_ssr WHERE run_id = 'cmm-a'")
    assert len(ssr) == 4
    for row in ssr:
        e = cmm[f"ssr@{row['alpha']:g}"]
        assert (e.n, e.value) == (row["n_points"], pytest.approx(row["ssr"], abs=1e-12))
    # the authors' figures, as their script prints them (right / (count + 1), one decimal)
    official = q("SELECT breakdown, key, n, correct, score FROM cmmath_official_scores "
                 "WHERE run_id = 'cmm-a' AND n > 0 AND key <> '(total)'")
    assert {r["breakdown"] for r in official} == {"overall", "subject", "grade_id",
                                                  "question_type"}
    for row in official:
        key = ("official:overall" if row["breakdown"] == "overall"
               else f"official:{row['breakdown']}:{row['key']}")
        e = cmm[key]
        assert f"{100 * e.value:.1f}" == f"{row['score']:.1f}", key
        assert e.n == row["n"]
    their_ssr = q("SELECT alpha, n_points, ssr FROM cmmath_official_ssr WHERE run_id = 'cmm-a'")
    assert len(their_ssr) == 9
    for row in their_ssr:
        e = cmm[f"official_ssr@{row['alpha']:g}"]
        assert (e.n, e.value) == (row["n_points"], pytest.approx(row["ssr"], abs=1e-12))


def test_every_interval_holds_its_estimate(everything):
    checked = 0
    for b in everything.benchmarks:
        for f in b.figures.values():
            for e in f.values():
                assert e.ci_low <= e.value <= e.ci_high
                checked += 1
        for d in b.differences:
            assert d.ci_low <= d.diff <= d.ci_high
        for rows in b.model_rows.values():
            for m in rows:
                assert m.average.ci_low <= m.average.value <= m.average.ci_high
    assert checked > 500


def test_intervals_narrow_with_n(everything):
    full, sub = figures(everything, "v1"), figures(everything, "v1-sub")
    assert sub["score.strict"].n == 105 and full["score.strict"].n == 525
    for key in ("score.strict", "score.loose", "ik", "ig", "cm.strict", "cm.loose", "s1", "s2",
                "s3", "rm_rate.strict"):
        width = {k: f[key].ci_high - f[key].ci_low for k, f in (("full", full), ("sub", sub))}
        assert width["sub"] > 1.4 * width["full"], key
    # about the binomial standard error, with whole problems resampled (S2: one question each)
    e = full["s2"]
    se = math.sqrt(e.value * (1 - e.value) / e.n)
    assert e.ci_high - e.ci_low == pytest.approx(2 * 1.96 * se, rel=0.15)


def test_identical_runs_differ_by_nothing(results):
    out = cli_json(results, "v1", "v1-copy")
    diffs = [d for d in out["differences"] if d["run_b"] == "v1-copy"]
    assert {d["stat"] for d in diffs} >= {"score.strict", "score.loose", "ik", "s1", "s2", "s3"}
    for d in diffs:
        assert d["diff"] == 0 and d["ci_low"] < 0 < d["ci_high"]     # none, yet not certain
        assert d["ci_low"] == pytest.approx(-d["ci_high"])       # symmetric: nothing moved
        assert d["p_value"] == 1 and not d["significant"]
        if d["test"] == "mcnemar":
            assert d["only_a"] == d["only_b"] == 0
    (ik,) = [d for d in diffs if d["stat"] == "ik"]           # Tango, no discordant of 525
    assert ik["ci_method"] == "tango"
    assert ik["ci_high"] == pytest.approx(1.96 ** 2 / (525 + 1.96 ** 2), rel=1e-3)
    assert out["runs"]["v1"]["figures"] == out["runs"]["v1-copy"]["figures"]


def test_a_perturbed_copy_gives_the_mcnemar_counts_of_its_perturbation(results):
    out = cli_json(results, "v1", "v1-perturbed")
    by = {d["stat"]: d for d in out["differences"]}
    s1 = by["s1"]
    assert s1["test"] == "mcnemar" and (s1["only_a"], s1["only_b"]) == (N_WRONG, N_RIGHT)
    assert s1["diff"] == pytest.approx((N_RIGHT - N_WRONG) / 1215)
    assert s1["p_value"] == pytest.approx(sps.binomtest(N_WRONG, N_WRONG + N_RIGHT).pvalue)
    assert s1["significant"] is (s1["p_adjusted"] < 0.05) and s1["p_adjusted"] >= s1["p_value"]
    assert (by["s2"]["only_a"], by["s2"]["only_b"]) == (0, 0)     # no composite answer changed
    assert by["score.strict"]["test"] == "bootstrap"               # the 4-D score: bootstrap
    assert by["score.strict"]["ci_low"] <= by["score.strict"]["diff"] <= 0


def test_mcnemar_is_scipys_exact_binomial_test():
    for a, b in [(0, 0), (1, 0), (10, 4), (4, 10), (30, 12), (200, 170), (7, 7)]:
        want = 1.0 if a + b == 0 else sps.binomtest(a, a + b, 0.5).pvalue
        assert stats.mcnemar(a, b) == pytest.approx(want, rel=1e-9, abs=1e-15)


def test_stats_are_sums_over_cells():
    """ratio, macro, share_above, and an offset denominator (right / (count + 1))."""
    from mathprobe.contract import Stat
    cells = {"a": 0, "b": 1, "c": 2}
    num = np.array([[3.0, 1.0, 0.0]])
    den = np.array([[4.0, 4.0, 0.0]])                 # c has no rows: left out
    got = stats.Compiled([Stat("r", "r", ("a",)), Stat("m", "m", ("a", "b", "c"), how="macro"),
                          Stat("s", "s", ("a", "b", "c"), how="share_above", alpha=0.25),
                          Stat("t", "t", ("a", "b"), how="share_above", alpha=0.75),
                          Stat("o", "o", ("a",), den_offset=1.0),
                          Stat("os", "os", ("a", "b"), how="share_above", alpha=0.6,
                               den_offset=1.0)], cells).evaluate(num, den)[0]
    assert list(got) == [0.75, 0.5, 0.5, 0.0, 0.6, 0.0]   # 0.75 is not above 0.75, 3/5 not > 0.6


def test_the_bootstrap_is_seeded_and_agrees_with_scipy():
    from mathprobe.reports.unit_sums import UnitSums

    rng = np.random.default_rng(1)
    x = (rng.random(400) < 0.3).astype(float)
    sums = UnitSums.of(np.arange(400), np.zeros(400, dtype=np.int64), x, np.ones(400), 400, 1)
    ns, ds = stats.resample_sums(sums)
    reps = ns[:, 0] / ds[:, 0]
    lo, hi = stats.interval(np.array([x.mean()]), reps[:, None])
    theirs = sps.bootstrap((x,), np.mean, n_resamples=20_000, method="percentile",
                           random_state=0).confidence_interval
    assert lo[0] == pytest.approx(theirs.low, abs=0.01)
    assert hi[0] == pytest.approx(theirs.high, abs=0.01)
    again = stats.resample_sums(sums)[0]
    assert np.array_equal(again, ns)                                   # same seed, same draws
    other = stats.resample_sums(sums, seed=7)[0]
    assert not np.array_equal(other, ns)


def test_the_sums_over_entries_are_scipys_sparse_products():
    """The bootstrap's sums over a run's (unit, cell) entries (mathprobe/reports/unit_sums.py,
    numpy alone: scipy left the core install, issue 38) are exactly what scipy's sparse
    products gave, on the shape of ConceptMath's full run, duplicate rows included."""
    from scipy import sparse

    from mathprobe.reports.unit_sums import UnitSums

    rng = np.random.default_rng(3)
    units, cells, rows = 4011, 307, 20_055
    unit, cell = rng.integers(0, units, rows), rng.integers(0, cells, rows)
    num, den = rng.integers(0, 2, rows).astype(float), np.ones(rows)
    sums = UnitSums.of(unit, cell, num, den, units, cells)
    csr_num = sparse.csr_matrix((num, (unit, cell)), shape=(units, cells))
    csr_den = sparse.csr_matrix((den, (unit, cell)), shape=(units, cells))
    w = stats.weights(units, 300)
    got_num, got_den = sums.resampled(w)
    assert np.allclose(got_num, (csr_num.T @ w).T) and np.allclose(got_den, (csr_den.T @ w).T)
    total_num, total_den = sums.totals()
    assert np.array_equal(total_num, np.asarray(csr_num.sum(axis=0)).ravel())
    assert np.array_equal(total_den, np.asarray(csr_den.sum(axis=0)).ravel())
    some = np.array([0, 5, 17, 306])
    want = int(np.count_nonzero(np.asarray((csr_den[:, some] > 0).sum(axis=1)).ravel()))
    assert sums.units_with_rows(some) == want
    a, b = csr_num.toarray(), csr_den.toarray()
    bad = (a > b) | ((a != 0) & (a != 1)) | ((b != 0) & (b != 1))
    assert np.array_equal(sums.binary_cells(), ~bad.any(axis=0))
    assert not sums.binary_cells().all()                  # duplicates summed past 1 somewhere


def test_benjamini_hochberg_is_scipys():
    from mathprobe.reports import intervals

    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 60):
        p = rng.random(n) ** 3
        p[rng.random(n) < 0.2] = p[0]                     # ties
        want = sps.false_discovery_control(p, method="bh")
        assert intervals.adjust(p) == pytest.approx(want, rel=1e-12)
    assert np.isnan(intervals.adjust([0.01, np.nan, 0.2])[1])


def test_the_kca_transition_matrix_counts_every_problem_once(results, everything):
    def dims(rows):
        by: dict[str, dict[str, bool]] = {}
        for r in rows:
            by.setdefault(r["ID"], {})[r["key"]] = wemath.extract_official(r["response"]) == r["answer"]
        out = {}
        for pid, qs in by.items():
            subs = [v for k, v in qs.items() if not k.endswith("multi")]
            multi = next(v for k, v in qs.items() if k.endswith("multi"))
            out[pid] = ("CM" if all(subs) else "RM") if multi else ("IG" if all(subs) else "IK")
        return out
    plain, kca = dims(results.responses["v1"]), dims(results.responses["v1-perturbed"])
    want = {}
    for pid in plain:
        want[(plain[pid], kca[pid])] = want.get((plain[pid], kca[pid]), 0) + 1
    got = {(f, t): n for f, t, n in results.store.query(
        "SELECT from_dim, to_dim, n FROM wemath_transitions('v1', 'v1-perturbed') "
        "WHERE rule = 'strict'") if n}
    assert got == want and sum(got.values()) == 525
    assert any(f != t for f, t in got)                                  # the flips moved some
    (section,) = [s for b in everything.benchmarks for s in b.sections if "strict" in s.title]
    assert "model-x" in section.title and "v1 (plain" in section.title
    assert sum(r[-1] for r in section.rows) == 525
    matrix = {(r[0], to): n for r in section.rows for to, n in zip("IK IG CM RM".split(), r[1:5])}
    assert {k: v for k, v in matrix.items() if v} == want
    view = results.store.query("SELECT sum(n) FROM wemath_kca_transitions WHERE model = "
                               "'model-x' AND rule = 'loose'")
    assert view == [(525,)]


def test_conceptmath_table2_has_one_row_per_model_with_its_average(everything):
    (b,) = [b for b in everything.benchmarks if b.benchmark == "conceptmath"]
    (row,) = b.model_rows["table2"]
    assert row.model == "llama-3-70b" and row.runs == {"zs": "cm-zs", "fs": "cm-fs"}
    cells = [b.figures[r]["system:element_en"].value for r in ("cm-zs", "cm-fs")]
    assert row.average.value == pytest.approx(sum(cells) / 2) and row.average.n == 2


def test_json_csv_and_the_terminal(results, tmp_path):
    out = cli_json(results, "--benchmark", "wemath", "--csv", str(tmp_path / "c.csv"))
    assert set(out["runs"]) == {"v1", "v1-copy", "v1-perturbed", "v1-sub"}
    fig = out["runs"]["v1"]["figures"]["score.strict"]
    assert set(fig) >= {"value", "ci_low", "ci_high", "n"} and fig["n"] == 525
    rows = list(csv.DictReader((tmp_path / "c.csv").open()))
    assert {r["kind"] for r in rows} == {"figure", "difference"}
    (score,) = [r for r in rows if r["kind"] == "figure" and r["run_id"] == "v1"
                and r["figure"] == "score.strict"]
    assert float(score["value"]) == pytest.approx(fig["value"]) and score["n"] == "525"
    text = CliRunner().invoke(app, ["compare", "--db", str(results.db), "v1", "v1-perturbed"],
                              terminal_width=160).output
    assert "WE-MATH Table 2, strict rule" in text and "14.00" in text
    assert f"McN {N_WRONG}/{N_RIGHT}" in text
    assert "plain \\ kca" in text                                     # the transition matrix
    bad = CliRunner().invoke(app, ["compare", "--db", str(results.db), "nosuch"])
    assert bad.exit_code != 0 and "no run 'nosuch'" in str(bad.exception)


def _styled_lines(result, width: int) -> list[list[tuple[str, object]]]:
    """The terminal rendering at `width` columns, as lines of (text, style) segments."""
    from rich.console import Console
    from rich.segment import Segment

    from mathprobe.reports import compare_render

    console = Console(width=width, force_terminal=True, color_system="truecolor")
    segments = console.render(compare_render.render(result, width))
    return [[(s.text, s.style) for s in line] for line in Segment.split_lines(segments)]


def test_the_terminal_at_80_columns(results):
    """Read as a user at 80 columns: no line wider, run ids whole (a legend names them once,
    tables by letter), a differences table per rule, and colour by better or worse for the
    figure: IK down is green, accuracy down is red."""
    result = compare.compare(results.store, ["v1", "v1-perturbed", "v1-sub"])
    lines = _styled_lines(result, 80)
    text = ["".join(t for t, _ in line).rstrip() for line in lines]
    assert max(len(line) for line in text) <= 80
    legend = {line.split()[1]: line.split() for line in text
              if line.split()[:1] in (["A"], ["B"], ["C"]) and len(line.split()) >= 5}
    assert legend["v1"][0] == "A" and legend["v1-perturbed"][:4] == ["B", "v1-perturbed",
                                                                     "model-x", "kca"]
    # nothing folds a run id into fragments: it is whole in the legend, tables say B
    assert not [line for line in text if "v1-pert" in line and "v1-perturbed" not in line]
    # (the run cards' table quotes what differs, such as the file a run was imported from)
    cards = next((k for k, line in enumerate(text) if line.startswith("Run cards:")), len(text))
    assert [line for line in text[:cards] if "v1-perturbed" in line and "problems from" not in line
            ] == [next(line for line in text if line.split()[:2] == ["B", "v1-perturbed"])]
    strict = text.index("WE-MATH Table 2, strict rule: four-dimensional metric: run − "
                        "baseline A")
    loose = text.index("WE-MATH Table 2, loose rule: four-dimensional metric: run − "
                       "baseline A")
    assert strict < loose
    header = text[strict + 2].split()
    assert header == ["figure", "run", "diff", "95%", "interval", "p", "p", "adj", "test",
                      "change"]
    rows = {tuple(line.split()[:2]): (line, lines[k]) for k, line in enumerate(text)
            if strict < k < loose and len(line.split()) > 6}
    ik_line, ik_segments = rows[("IK", "B")]
    assert "+0.76" in ik_line and ik_line.split()[-1] == "worse"      # IK up: worse
    (style,) = {s for t, s in ik_segments if t.strip().startswith("+0.76")}
    assert style.color.name == "red" and not style.bold                # not significant
    ig_line, ig_segments = rows[("IG", "B")]
    assert "-0.76" in ig_line and ig_line.split()[-1] == "better"     # IG down: better
    assert {s.color.name for t, s in ig_segments if t.strip().startswith("-0.76")} == {"green"}

    # a significant change: bold, and red for a loss of accuracy, green for the gain back
    for runs, word, colour in ((["cm-zs", "cm-fs"], "worse*", "red"),
                               (["cm-fs", "cm-zs"], "better*", "green")):
        lines = _styled_lines(compare.compare(results.store, runs), 80)
        (row,) = [line for line in lines
                  if "".join(t for t, _ in line).split()[:2] == ["All", runs[1]]]
        assert "".join(t for t, _ in row).split()[-1] == word
        (style,) = {s for t, s in row if t.strip().endswith("*") and t.strip()[0] in "+-"}
        assert style.bold and style.color.name == colour
