"""ConceptMath end to end: all four systems and three settings through the eval flow, the
contamination and classification probes through a loopback OpenAI-compatible server and through
Triton with the tiny model."""
from __future__ import annotations

import json
import math

import pytest
import torch

from mathprobe.benchmarks import conceptmath
from mathprobe.benchmarks.conceptmath import probes
from mathprobe.flows.eval import eval_flow
from mathprobe.flows.probes import classify_flow, contamination_flow
from mathprobe.store import open_store
from tests.support.fake_api import fake_logprob, fake_tokens
from tests.support.report import figure

pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture
def api(fake_openai):
    return fake_openai


# ~20 s: every ConceptMath item in each of the three settings through the real flow,
# the only test that runs the whole benchmark end to end.
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


def authors_turns(data_dir, system: str) -> list[dict]:
    """The authors' few-shot chat of a system, read straight from the data file."""
    chats = json.loads((data_dir / "conceptmath" / "fewshot_authors_chat.json").read_text())
    return [{"role": t["role"], "content": t["content"]} for t in chats[system]]


def test_three_settings_through_an_openai_compatible_server(api, data_dir, db):
    for setting in conceptmath.SETTINGS:
        report = eval_flow(benchmark="conceptmath", model="openai:m", setting=setting,
                           run_id=f"api-{setting}", db=str(db), data_dir=str(data_dir),
                           limit=20, concurrency=8)
        assert report["run"]["n_ok"] == 20
    items = conceptmath.select(conceptmath.load(data_dir).items, 20)
    assert {i.group_id for i in items} == set(conceptmath.SYSTEMS)
    bodies = [r["body"] for r in api.requests]
    assert len(bodies) == 60
    # zero-shot and CoT: one user message, the question (and the instruction)
    single = sorted(b["messages"][0]["content"][-1]["text"] for b in bodies
                    if len(b["messages"]) == 1)
    assert single == sorted([conceptmath.build_prompt(i, s) for i in items
                             for s in ("zs", "zs-cot")])
    # few-shot: the authors' 10 turns of the item's system, turn by turn, then the question
    few = [b["messages"] for b in bodies if len(b["messages"]) > 1]
    assert len(few) == 20
    by_question = {i.question: i for i in items}
    for messages in few:
        *prior, last = messages
        item = by_question[last["content"][-1]["text"]]
        assert last == {"role": "user", "content": [{"type": "text", "text": item.question}]}
        assert prior == authors_turns(data_dir, item.group_id)
    assert {by_question[m[-1]["content"][-1]["text"]].item_id for m in few} == \
        {i.item_id for i in items}


def test_few_shot_turns_reach_anthropic_turn_by_turn(api, data_dir, db, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.anthropic_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-local")
    report = eval_flow(benchmark="conceptmath", model="anthropic:m", setting="fs",
                       run_id="anth-fs", db=str(db), data_dir=str(data_dir), limit=4,
                       concurrency=4)
    assert report["run"]["n_ok"] == 4
    items = {i.question: i for i in conceptmath.select(conceptmath.load(data_dir).items, 4)}
    seen = set()
    for r in api.requests:
        assert r["path"].endswith("/v1/messages")
        *prior, last = r["body"]["messages"]
        item = items[last["content"][-1]["text"]]
        assert last == {"role": "user", "content": [{"type": "text", "text": item.question}]}
        assert prior == authors_turns(data_dir, item.group_id)
        seen.add(item.item_id)
    assert len(seen) == 4


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
        item = first_halves[prompt]           # the first half, as is, nothing else
        return truth[prompt] if item.item_id in exact else "zzz qqq"

    api.reply = reply
    out = contamination_flow(model="openai:m", method="both", run_id="probe", db=str(db),
                             data_dir=str(data_dir), limit=16, concurrency=8)
    # Rouge: the first half of each question, cut from the text as is, with no instruction,
    # to the text completions endpoint (not chat)
    continued = [r for r in api.requests if not r["body"].get("echo")]
    assert len(continued) == 16
    for r in continued:
        assert r["path"].endswith("/v1/completions") and "messages" not in r["body"]
        item = first_halves[r["body"]["prompt"]]
        assert item.question.strip().startswith(r["body"]["prompt"])
        assert r["body"]["max_tokens"] == 256 and r["body"]["temperature"] == 0.0
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
        assert row["rouge_l_x100"] == pytest.approx(100 * row["rouge_l"])     # Table 3's scale

    # MIN-K% from the server's prompt log-probabilities, recomputed by hand
    mink = dict(store.query("SELECT item_id, min_k FROM conceptmath_mink_items "
                            "WHERE run_id = 'probe-mink'"))
    for item in items:
        tokens = fake_tokens(item.question)
        lps = sorted(fake_logprob(t.strip()) for t in tokens[1:])   # the first has no context
        k = max(1, math.floor(0.1 * len(lps)))
        assert mink[item.item_id] == pytest.approx(sum(lps[:k]) / k)
    assert {r["system"] for r in out["mink"]["rows"]} == set(conceptmath.SYSTEMS)
    for row in out["mink"]["rows"]:          # both scales: mean log-prob, and mean exp() of it
        ids = [i.item_id for i in items if i.group_id == row["system"]]
        assert row["min_k"] == pytest.approx(sum(mink[i] for i in ids) / len(ids))
        assert row["min_k_prob"] == pytest.approx(sum(math.exp(mink[i]) for i in ids) / len(ids))
        assert 0 < row["min_k_prob"] <= 1
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
    from mathprobe import reports
    report = reports.build(store, "cls")
    assert {s: figure(report, f"mrr:{s}")["value"] for s in rows} == \
        {s: pytest.approx(r["mrr"]) for s, r in rows.items()}
    assert report["notes"][0].startswith("MRR and top-1 of the true level-2 concept")


def test_contamination_needs_a_completion_endpoint(api, data_dir, db, monkeypatch):
    """A chat-only API cannot take the first half as is: a clear error before any run."""
    from mathprobe.errors import MathprobeError

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-local")
    with pytest.raises(MathprobeError, match="no completion endpoint"):
        contamination_flow(model="anthropic:m", method="rouge", run_id="nope", db=str(db),
                           data_dir=str(data_dir), limit=4)
    assert open_store(db).query("SELECT count(*) FROM runs") == [(0,)]
    assert api.requests == []


def test_conceptmath_through_triton(triton_server, tiny_vlm, data_dir, db):
    from transformers import AutoModelForImageTextToText, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_vlm)
    url = triton_server.grpc_url
    report = eval_flow(benchmark="conceptmath", model="triton:lmm_generate", setting="zs",
                       run_id="tri", db=str(db), data_dir=str(data_dir), limit=8,
                       max_tokens=8, concurrency=4, triton_url=url)
    assert report["run"]["n_ok"] == 8
    store = open_store(db)
    # few-shot to a one-text backend: the authors' turns flattened into a User/Assistant
    # transcript (mathprobe/backends/transcript.py), which is what reaches the model
    report = eval_flow(benchmark="conceptmath", model="triton:lmm_generate", setting="fs",
                       run_id="tri-fs", db=str(db), data_dir=str(data_dir), limit=2,
                       max_tokens=2, concurrency=2, triton_url=url)
    assert report["run"]["n_ok"] == 2
    items = conceptmath.load(data_dir).by_id()
    for item_id, n_in in store.query("SELECT item_id, input_tokens FROM current_responses "
                                     "WHERE run_id = 'tri-fs'"):
        item = items[item_id]
        roles = {"user": "User", "assistant": "Assistant"}
        text = "\n\n".join([f"{roles[t['role']]}: {t['content']}"
                             for t in authors_turns(data_dir, item.group_id)]
                            + [f"User: {item.question}", "Assistant:"])
        assert n_in == len(tok(text)["input_ids"]) > len(tok(item.question)["input_ids"]) + 100

    out = contamination_flow(model="triton:lmm_generate", method="both", run_id="tc",
                             db=str(db), data_dir=str(data_dir), limit=8, concurrency=4,
                             triton_url=url)
    assert len(out["rouge"]["rows"]) == 4 and len(out["mink"]["rows"]) == 4
    # Rouge: only the first half, as is, reached the model (text generation, no template)
    for item_id, n_in in store.query("SELECT item_id, input_tokens FROM current_responses "
                                     "WHERE run_id = 'tc-rouge'"):
        assert n_in == len(tok(probes.halves(items[item_id])[0])["input_ids"])
    # MIN-K% from the stored prompt log-probabilities: the mean of the lowest 10% (>= 1)
    for (item_id,) in store.query("SELECT item_id FROM conceptmath_mink_items WHERE run_id = 'tc-mink'"):
        lps = sorted(lp for (lp,) in store.query(
            "SELECT t.logprob FROM token_logprobs t JOIN current_responses c USING (response_id) "
            "WHERE c.run_id = 'tc-mink' AND c.item_id = ? AND t.kind = 'prompt'", [item_id]))
        k = max(1, math.floor(0.1 * len(lps)))
        (got,), = store.query("SELECT min_k FROM conceptmath_mink_items WHERE run_id = 'tc-mink' "
                              "AND item_id = ?", [item_id])
        assert got == pytest.approx(sum(lps[:k]) / k) and got < 0

    # classification: the concepts as options A, B, ...; ranked by the likelihood of each label
    # after the prompt, recomputed here with the same checkpoint in-process
    out = classify_flow(model="triton:lmm_generate", run_id="tcl", db=str(db),
                        data_dir=str(data_dir), limit=4, concurrency=2, triton_url=url)
    rankings = store.query("SELECT item_id, detail, score FROM probe_scores WHERE run_id = 'tcl'")
    assert len(rankings) == 4
    model = AutoModelForImageTextToText.from_pretrained(tiny_vlm).eval()
    for item_id, detail, score in rankings:
        item = items[item_id]
        opts = probes.level2_options(conceptmath.load(data_dir).items, item.group_id)
        labels = [chr(ord("A") + k) for k in range(len(opts))]
        assert len(opts) <= 26
        prompt = ("Which mathematical concept does the following question test?\n"
                  f"Question: {item.question}\n"
                  + "".join(f"{lab}. {o}\n" for lab, o in zip(labels, opts)) + "Answer:")
        prefix = [tok.bos_token_id] + tok(prompt, add_special_tokens=False)["input_ids"]
        totals = []
        for lab in labels:
            ids = tok(" " + lab, add_special_tokens=False)["input_ids"]
            with torch.no_grad():
                logits = model(input_ids=torch.tensor([prefix + ids])).logits[0].float()
            logp = torch.log_softmax(logits, dim=-1)
            totals.append(sum(logp[len(prefix) - 1 + j, t].item() for j, t in enumerate(ids)))
        ranking = [int(k) for k in detail.split(",")]
        assert sorted(ranking) == list(range(1, len(opts) + 1))      # every option ranked once
        ranked = [totals[k - 1] for k in ranking]                     # most likely label first
        assert all(a >= b - 1e-4 for a, b in zip(ranked, ranked[1:])), (ranked, totals)
        assert len(set(round(t, 3) for t in totals)) > 1              # not all tied
        gold = opts.index(probes.gold_option(item)) + 1
        assert score == pytest.approx(1 / (ranking.index(gold) + 1))
