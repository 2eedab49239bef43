"""`baseline:random` on each benchmark's full data, through the real `eval` flow: it answers in
that benchmark's own format (its graders read every guess), and its headline figures land on
the documented chance level (the mean of `item_chance` over the figure's items: what the
glossary states) within the figure's 95% interval."""
from __future__ import annotations

import json

import pytest

from mathprobe.errors import MathprobeError
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


def test_chance_runs_vary_with_the_seed_and_the_setting_and_keep_their_seed(tmp_path, data_dir,
                                                                           monkeypatch):
    """Issue 38 item 5: the chance baseline drew from one seed whatever the setting, so two
    chance runs answered alike and every difference between them read +0.00. Its draws now
    depend on the seed (`--seed`, default 0) and the setting; the same seed gives the same
    answers; the seed is one of the run's parameters (so a run id never mixes two seeds) and
    on its card."""
    db = tmp_path / "seeds.duckdb"
    runs = {("zs", None): "zs", ("zs-cot", None): "cot", ("zs", 7): "zs-7", ("zs", 0): "zs-0"}
    for (setting, seed), run_id in runs.items():
        eval_flow(benchmark="conceptmath", model="baseline:random", setting=setting,
                  run_id=run_id, db=str(db), data_dir=str(data_dir), limit=200, seed=seed)
    close_all()
    store = open_store(db, read_only=True)

    def answers(run_id: str) -> dict[str, str]:
        return dict(store.query("SELECT item_id, response FROM responses WHERE run_id = ?",
                                [run_id]))

    def digits(text: str) -> str:
        return "".join(c for c in text if c.isdigit())

    zs, cot, zs7, zs0 = (answers(r) for r in ("zs", "cot", "zs-7", "zs-0"))
    assert len(zs) == len(cot) == len(zs7) == 200
    assert zs == zs0                                      # the default seed is 0
    same = sum(digits(zs[i]) == digits(cot[i]) for i in zs)
    assert same < 20                                      # independent draws, not one
    assert sum(digits(zs[i]) == digits(zs7[i]) for i in zs) < 20
    params = dict(store.query("SELECT run_id, params FROM runs"))
    assert json.loads(params["zs-7"])["seed"] == 7 and json.loads(params["zs"])["seed"] == 0
    assert json.loads(store.query("SELECT card FROM runs WHERE run_id = 'zs-7'")[0][0]
                      )["seeds"]["baseline"] == 7
    (b,) = compare.compare(store, ["zs", "cot"]).benchmarks
    assert b.figures["zs"]["all"].value != b.figures["cot"]["all"].value
    with pytest.raises(MathprobeError, match=r"run id 'zs' already holds other work.*seed"):
        eval_flow(benchmark="conceptmath", model="baseline:random", setting="zs",
                  run_id="zs", db=str(db), data_dir=str(data_dir), limit=200, seed=7)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-seed")
    with pytest.raises(MathprobeError, match=r"^--seed 3: openai:gpt-4o draws nothing at random"):
        eval_flow(benchmark="conceptmath", model="openai:gpt-4o", run_id="o", db=str(db),
                  data_dir=str(data_dir), limit=10, seed=3)
