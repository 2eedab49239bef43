"""WE-MATH's four dimensions (IK, IG, CM, RM, paper Sec. 3.2) are defined in one place, the
macro wemath_dimension, which the view wemath_problem_dimensions calls: the paper's Table 2
(wemath_four_dimensional), compare's problem cells (wemath_figure_units) and the KCA
transitions all count its rows, so no two of them can classify a problem differently; the
sampled figures (each sample, the majority answers: wemath_sample_dimensions) call the same
macro."""
from __future__ import annotations

import json
import re

from mathprobe import runs
from mathprobe.benchmarks import wemath
from mathprobe.paths import SQL_DIR
from mathprobe.store import Store
from mathprobe.store.sql_order import code
from tests.benchmarks.wemath.helpers import make_wemath_dir, responses_for

# per problem: the one-step results, then the composite; its dimension (strict, loose)
PROBLEMS = {
    "2steps_1": ([True, True, True], ("CM", "CM")),
    "2steps_2": ([True, False, True], ("RM", "CM")),
    "2steps_3": ([False, False, True], ("RM", "RM")),
    "3steps_1": ([True, True, True, False], ("IG", "IG")),
    "3steps_2": ([False, True, False, False], ("IK", "IK")),
    "3steps_4": ([True, False, True, True], ("RM", "CM")),
}


def test_only_the_dimension_macro_decides_a_dimension():
    """The rules (all / any one-step question right, with the composite) are written once, in
    wemath_dimension: no other WE-MATH file decides a dimension (a CASE branch giving IK, IG,
    CM or RM), and the views that classify problems (the answers that count; each sample and
    the majority answers) call it."""
    deciders, callers = set(), set()
    for f in (SQL_DIR / "wemath").rglob("*.sql"):
        body = code(f.read_text())
        if re.search(r"\b(THEN|ELSE)\s+'(IK|IG|CM|RM)'", body):
            deciders.add(f.name)
        if re.search(r"\bwemath_dimension\s*\(", body):
            callers.add(f.name)
    assert deciders == {"wemath_dimension.sql"}
    assert callers == {"wemath_dimension.sql", "wemath_problem_dimensions.sql",
                       "wemath_sample_dimensions.sql"}


def test_every_figure_of_problems_counts_the_same_dimensions(tmp_path):
    spec = {pid: {"gold": ["A"] * len(c), "concepts": ["Leaf One"] * len(c)}
            for pid, (c, _) in PROBLEMS.items()}
    root = make_wemath_dir(tmp_path / "data", spec)
    wemath.load.cache_clear()
    results = tmp_path / "results.json"
    results.write_text(json.dumps(responses_for(root, {p: c for p, (c, _) in PROBLEMS.items()})))
    store = Store(tmp_path / "store.duckdb")
    try:
        runs.import_official(store, wemath.benchmark, root, results, "hand")
        runs.import_official(store, wemath.benchmark, root, results, "again")
        dims = {(p, rule): d for p, rule, d in store.query(
            "SELECT problem_id, rule, dimension FROM wemath_problem_dimensions "
            "WHERE run_id = 'hand'")}
        assert dims == {(p, rule): d for p, (_, ds) in PROBLEMS.items()
                        for rule, d in zip(("strict", "loose"), ds)}
        for rule in ("strict", "loose"):
            (row,) = store.query_dicts("SELECT n, ik, ig, cm, rm FROM wemath_four_dimensional "
                                       "WHERE run_id = 'hand' AND rule = ?", [rule])
            mine = [d for (p, r), d in dims.items() if r == rule]
            assert row == {"n": len(mine), **{k.lower(): mine.count(k) for k in
                                              ("IK", "IG", "CM", "RM")}}
            cells = dict(store.query(
                "SELECT cell, sum(num) FROM wemath_figure_units WHERE run_id = 'hand' "
                "AND cell IN ('ik', 'ig', $cm, $rm) GROUP BY cell",
                {"cm": f"cm.{rule}", "rm": f"rm.{rule}"}))
            assert cells == {"ik": row["ik"], "ig": row["ig"], f"cm.{rule}": row["cm"],
                             f"rm.{rule}": row["rm"]}
        # two runs of the same answers: every problem stays where it is
        moves = store.query("SELECT rule, from_dim, to_dim, n FROM wemath_transitions("
                            "'hand', 'again') WHERE n > 0")
        assert sorted(moves) == sorted(
            (rule, d, d, n) for rule in ("strict", "loose")
            for d, n in {d: [x for (_, r), x in dims.items() if r == rule].count(d)
                         for (_, r), d in dims.items() if r == rule}.items())
    finally:
        store.close()
