"""`baseline:random` on each benchmark's full data, through the real `eval` flow: it answers in
that benchmark's own format (its graders read every guess), and its headline figures land on
the documented chance level (the mean of `item_chance` over the figure's items: what the
glossary states) within the figure's 95% interval."""
from __future__ import annotations

import pytest

from mathprobe.flows.eval import eval_flow
from mathprobe.reports import compare
from mathprobe.store import close_all, open_store

pytestmark = [pytest.mark.usefixtures("prefect_harness"), pytest.mark.timeout(900)]

# benchmark -> (figure key, the items it is over, as SQL on items i)
FIGURES = {
    "wemath": [("s1", "i.part NOT LIKE '%multi'"), ("s2", "i.part = '2steps_multi'"),
               ("s3", "i.part = '3steps_multi'")],
    "conceptmath": [("all", "true")],
    "cmmath": [("all", "true"), ("type:choice", "i.part = 'choice'")],
}


@pytest.fixture(scope="module")
def chance_runs(tmp_path_factory, data_dir):
    db = tmp_path_factory.mktemp("chance") / "chance.duckdb"
    for bench in FIGURES:
        report = eval_flow(benchmark=bench, model="baseline:random", run_id=f"chance-{bench}",
                           db=str(db), data_dir=str(data_dir))
        assert report["run"]["n_infra_failed"] == 0 and report["run"]["n_not_asked"] == 0
    close_all()
    return db


@pytest.mark.parametrize("bench", list(FIGURES))
def test_the_chance_baseline_lands_on_the_chance_level(chance_runs, bench):
    store = open_store(chance_runs, read_only=True)
    run_id = f"chance-{bench}"
    (b,) = compare.compare(store, [run_id]).benchmarks
    for key, where in FIGURES[bench]:
        (level, n), = store.query(
            f"SELECT avg(c.chance), count(*) FROM item_chance c JOIN items i USING "
            f"(benchmark, item_id) WHERE c.benchmark = ? AND {where}", [bench])
        f = b.figures[run_id][key]
        assert f.n == n > 0, (key, f.n, n)                      # every item asked and graded
        assert 0 < level < 0.5
        assert f.ci_method == ("bootstrap" if key == "s1" else "wilson")   # S1: clustered
        assert f.ci_low <= level <= f.ci_high, (bench, key, f, level)
    # the glossary states the same level
    text = " ".join(d for _, d in b.glossary)
    if bench != "wemath":
        (level, _), = store.query("SELECT avg(chance), count(*) FROM item_chance "
                                  "WHERE benchmark = ?", [bench])
        assert f"{100 * level:.2f}%" in text


def test_every_guess_is_read_by_the_benchmarks_grader(chance_runs):
    """WE-MATH's extraction finds a letter in each answer, ConceptMath's official grader a
    number, CMMaTH's rules decide every choice question with labelled options."""
    store = open_store(chance_runs, read_only=True)
    assert store.query("SELECT count(*) FILTER (extracted IS NULL), count(*) FROM verdicts "
                       "WHERE run_id = 'chance-wemath'")[0] == (0, 1740)
    assert store.query("SELECT count(*) FILTER (extracted IS NULL) FROM verdicts "
                       "WHERE run_id = 'chance-conceptmath' AND grader = 'official'") == [(0,)]
    undecided = store.query("""
        SELECT count(*) FROM items i
        LEFT JOIN verdicts v ON v.item_id = i.item_id AND v.run_id = 'chance-cmmath'
        WHERE i.benchmark = 'cmmath' AND len(i.payload->>'$.question') > 0
          AND i.part = 'choice' AND v.item_id IS NULL
          AND i.item_id IN (SELECT item_id FROM item_chance WHERE chance > 0)""")
    assert undecided == [(0,)]
