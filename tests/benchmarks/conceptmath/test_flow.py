"""ConceptMath end to end: all four systems and three settings through the eval flow, the
contamination and classification probes through a loopback OpenAI-compatible server and through
Triton with the tiny model."""
from __future__ import annotations

import math

import pytest

from flows.eval import eval_flow
from flows.probes import classify_flow, contamination_flow
from tasks.benchmarks import conceptmath
from tasks.benchmarks.conceptmath import probes
from tasks.store import open_store
from tests.support.fake_api import fake_logprob, fake_tokens

pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture
def api(fake_openai):
    return fake_openai


def test_whole_benchmark_three_settings_with_the_baseline(data_dir, db):
    n = len(conceptmath.load(data_dir).items)
    for setting in conceptmath.SETTINGS:
        report = eval_flow(benchmark="conceptmath", model="baseline:random", setting=setting,
                           run_id=f"rnd-{setting}", db=str(db), data_dir=str(data_dir),
                           concurrency=64)
        assert report["run"]["n_ok"] == n == 4011
    store = open_store(db)
    for grader in conceptmath.GRADERS:
        rows = store.query("SELECT run_id, sum(n) FROM conceptmath_accuracy WHERE grader = ? "
                           "GROUP BY run_id ORDER BY run_id", [grader])
        assert rows == [(f"rnd-{s}", n) for s in sorted(conceptmath.SETTINGS)]
    systems = store.query("SELECT DISTINCT system FROM conceptmath_accuracy ORDER BY 1")
    assert [s for (s,) in systems] == list(conceptmath.SYSTEMS)
    levels = dict(store.query("SELECT level, count(DISTINCT concept) FROM "
                              "conceptmath_concept_accuracy WHERE run_id = 'rnd-zs' GROUP BY 1"))
    assert set(levels) == {1, 2, 3} and levels[1] < levels[2] < levels[3]


def test_three_settings_through_an_openai_compatible_server(api, data_dir, db):
    for setting in conceptmath.SETTINGS:
        report = eval_flow(benchmark="conceptmath", model="openai:m", setting=setting,
                           run_id=f"api-{setting}", db=str(db), data_dir=str(data_dir),
                           limit=20, concurrency=8)
        assert report["run"]["n_ok"] == 20
    prompts = {r["body"]["messages"][-1]["content"][-1]["text"] for r in api.requests}
    items = conceptmath.select(conceptmath.load(data_dir).items, 20)
    assert {i.group_id for i in items} == set(conceptmath.SYSTEMS)
    for item in items:
        for setting in conceptmath.SETTINGS:
            assert conceptmath.build_prompt(item, setting) in prompts
    few = [p for p in prompts if p.startswith("Q: ")]
    assert len(few) == 20 and all(p.count("\nA: ") == 5 for p in few)


def test_probes_through_an_openai_compatible_server(api, data_dir, db):
    items = conceptmath.select(conceptmath.load(data_dir).items, 16)
    truth = {probes.halves(i)[0]: probes.halves(i)[1] for i in items}
    exact = {i.item_id for k, i in enumerate(items) if k % 2 == 0}
    first_halves = {probes.halves(i)[0]: i for i in items}

    def reply(payload, prompt):
        if "Concepts:" in prompt:             # classification: the gold concept first or last
            item = next(i for i in items if f"Question: {i.question}\n" in prompt)
            opts = probes.level2_options(conceptmath.load(data_dir).items, item.group_id)
            gold = opts.index(probes.gold_option(item)) + 1
            rest = [k for k in range(1, len(opts) + 1) if k != gold]
            order = [gold] + rest if item.group_id.endswith("_en") else rest + [gold]
            return ", ".join(map(str, order))
        prefix = prompt.split("\n\n", 1)[1]
        item = first_halves[prefix]
        return truth[prefix] if item.item_id in exact else "zzz qqq"

    api.reply = reply
    out = contamination_flow(model="openai:m", method="both", run_id="probe", db=str(db),
                             data_dir=str(data_dir), limit=16, concurrency=8)
    store = open_store(db)
    rouge = dict(store.query("SELECT item_id, score FROM probe_scores WHERE run_id = 'probe-rouge'"))
    assert len(rouge) == 16
    for item_id, score in rouge.items():
        assert score == 1.0 if item_id in exact else score < 0.2
    by_system = {r["system"]: r for r in out["rouge"]["rows"]}
    assert set(by_system) == set(conceptmath.SYSTEMS)
    for system, row in by_system.items():
        ids = [i.item_id for i in items if i.group_id == system]
        assert row["rouge_l"] == pytest.approx(sum(rouge[i] for i in ids) / len(ids))

    # MIN-K% from the server's prompt log-probabilities, recomputed by hand
    mink = dict(store.query("SELECT item_id, min_k FROM conceptmath_mink_items "
                            "WHERE run_id = 'probe-mink'"))
    for item in items:
        tokens = fake_tokens(item.question)
        lps = sorted(fake_logprob(t.strip()) for t in tokens[1:])   # the first has no context
        k = max(1, math.floor(0.1 * len(lps)))
        assert mink[item.item_id] == pytest.approx(sum(lps[:k]) / k)
    assert {r["system"] for r in out["mink"]["rows"]} == set(conceptmath.SYSTEMS)
    concept_rows = store.query("SELECT count(*) FROM contamination_mink_concept "
                               "WHERE run_id = 'probe-mink' AND level = 3")
    assert concept_rows[0][0] >= 4

    out = classify_flow(model="openai:m", run_id="cls", db=str(db), data_dir=str(data_dir),
                        limit=16, concurrency=8)
    rows = {r["system"]: r for r in out["classify"]["rows"]}
    for system in ("element_en", "middle_en"):
        assert rows[system]["mrr"] == 1.0 and rows[system]["top1"] == 1.0
    for system in ("element_zh", "middle_zh"):
        n_opts = len(probes.level2_options(conceptmath.load(data_dir).items, system))
        assert rows[system]["mrr"] == pytest.approx(1 / n_opts) and rows[system]["top1"] == 0
    # `mathprobe report` on a probe run shows the probe's table
    from tasks import reports
    report = reports.build(store, "cls")
    assert report["probe"] == "classify"
    assert {r["system"]: r["mrr"] for r in report["rows"]} == {s: r["mrr"] for s, r in rows.items()}


def test_conceptmath_through_triton(triton_server, data_dir, db):
    url = triton_server.grpc_url
    report = eval_flow(benchmark="conceptmath", model="triton:lmm_generate", setting="zs",
                       run_id="tri", db=str(db), data_dir=str(data_dir), limit=8,
                       max_tokens=8, concurrency=4, triton_url=url)
    assert report["run"]["n_ok"] == 8
    out = contamination_flow(model="triton:lmm_generate", method="both", run_id="tc",
                             db=str(db), data_dir=str(data_dir), limit=8, concurrency=4,
                             triton_url=url)
    store = open_store(db)
    assert len(out["rouge"]["rows"]) == 4 and len(out["mink"]["rows"]) == 4
    # MIN-K% from the stored prompt log-probabilities: the mean of the lowest 10% (>= 1)
    for (item_id,) in store.query("SELECT item_id FROM conceptmath_mink_items WHERE run_id = 'tc-mink'"):
        lps = sorted(lp for (lp,) in store.query(
            "SELECT t.logprob FROM token_logprobs t JOIN current_responses c USING (response_id) "
            "WHERE c.run_id = 'tc-mink' AND c.item_id = ? AND t.kind = 'prompt'", [item_id]))
        k = max(1, math.floor(0.1 * len(lps)))
        (got,), = store.query("SELECT min_k FROM conceptmath_mink_items WHERE run_id = 'tc-mink' "
                              "AND item_id = ?", [item_id])
        assert got == pytest.approx(sum(lps[:k]) / k) and got < 0
    out = classify_flow(model="triton:lmm_generate", run_id="tcl", db=str(db),
                        data_dir=str(data_dir), limit=4, concurrency=2, triton_url=url)
    rankings = store.query("SELECT item_id, detail, score FROM probe_scores WHERE run_id = 'tcl'")
    items = conceptmath.load(data_dir).by_id()
    assert len(rankings) == 4
    for item_id, detail, score in rankings:
        n_opts = len(probes.level2_options(conceptmath.load(data_dir).items,
                                           items[item_id].group_id))
        ranking = [int(k) for k in detail.split(",")]
        assert sorted(ranking) == list(range(1, n_opts + 1))      # every option ranked once
        gold = probes.level2_options(conceptmath.load(data_dir).items,
                                     items[item_id].group_id).index(
            probes.gold_option(items[item_id])) + 1
        assert score == pytest.approx(1 / (ranking.index(gold) + 1))
