"""--batch (issue 35 item 5): every answer of a run, and of its judge, arrives through the
service's batch API; the figures equal a direct run's; the recorded cost is half; requests a
batch did not answer are batched again; kill -9 while the batch is pending and the same command
again submits nothing twice. Against the loopback double of both services
(tests/support/fake_api.py, tests/support/fake_batches.py) and the real SDKs."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mathprobe.benchmarks import wemath
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from tests.conftest import REPO
from tests.support.cli import cli_env, error_lines, mathprobe
from tests.support.fake_api import FakeAPI
from tests.support.stores import query

pytestmark = pytest.mark.usefixtures("prefect_harness")

LIMIT = 30
MODELS = {"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5"}


def eval_flow(**params):
    return call_flow(_eval_flow, **params)


def varied(payload: dict, prompt: str) -> str:
    """A letter that depends on the question (some right, some wrong), in WE-MATH's format."""
    letter = "ABCDE"[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 5]
    return f"<Thought process>: <<looked>> <Answer>: <<{letter}>>"


@pytest.fixture
def api(monkeypatch):
    server = FakeAPI(reply=varied).start()
    for name, value in (("OPENAI_BASE_URL", server.openai_url),
                        ("ANTHROPIC_BASE_URL", server.anthropic_url),
                        ("OPENAI_API_KEY", "sk-test-batch"), ("ANTHROPIC_API_KEY", "sk-test-batch"),
                        ("MATHPROBE_BATCH_POLL_S", "0.2"), ("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")):
        monkeypatch.setenv(name, value)
    yield server
    server.stop()


def direct_calls(api) -> int:
    return sum(1 for r in api.requests if r["path"].endswith(("/chat/completions", "/messages")))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_run_gives_the_direct_run_s_figures_at_half_the_price(provider, api, data_dir,
                                                                     tmp_path):
    model = MODELS[provider]
    run = dict(benchmark="wemath", model=model, data_dir=str(data_dir), limit=LIMIT)
    direct = eval_flow(run_id="direct", db=str(tmp_path / "direct.duckdb"), **run)
    calls = direct_calls(api)
    assert calls > 0 and not api.batch_lines
    batched = eval_flow(run_id="batched", db=str(tmp_path / "batched.duckdb"), batch=True, **run)

    assert direct_calls(api) == calls                     # not one direct call
    n = len(wemath.select(wemath.load(data_dir).items, LIMIT))
    ids = [line["custom_id"] for line in api.batch_lines]
    assert len(ids) == len(set(ids)) == n                 # every item once, in a batch
    assert [s["service"] for s in api.batch_submissions] == [provider]
    assert batched["tables"] == direct["tables"]          # every figure the same
    assert batched["run"]["status"] == direct["run"]["status"] == "completed"
    sql = ("SELECT item_id, response, status, input_tokens, output_tokens, cost_usd "
           "FROM responses ORDER BY item_id")
    got, want = query(tmp_path / "batched.duckdb", sql), query(tmp_path / "direct.duckdb", sql)
    assert [r[:5] for r in got] == [r[:5] for r in want]
    assert all(g[5] == pytest.approx(w[5] / 2) and w[5] > 0 for g, w in zip(got, want))
    assert sum(r[5] for r in got) == pytest.approx(sum(r[5] for r in want) / 2)
    (status, n_done, collected), = query(tmp_path / "batched.duckdb",
                                         "SELECT status, n_done, collected_at IS NOT NULL "
                                         "FROM batches")
    assert (status, n_done, collected) == ({"openai": "completed", "anthropic": "ended"}[provider],
                                           n, True)
    card = json.loads(query(tmp_path / "batched.duckdb", "SELECT card FROM runs")[0][0])
    assert card["execution"]["batch"] is True


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_what_a_batch_did_not_answer_is_batched_again(provider, api, data_dir, db, monkeypatch):
    """One request expires, one meets the service's own failure (503), one is refused (400);
    the run is split into batches of 8: the first two are asked again in a new batch and
    answered; the refused one is stored infra_failed (for --retry-failed), never graded."""
    monkeypatch.setenv("MATHPROBE_BATCH_MAX_REQUESTS", "8")
    items = wemath.select(wemath.load(data_dir).items, LIMIT)
    texts = {}
    for it in items:
        texts.setdefault(f"Question: {it.question}\nOption: {it.payload['option']}", it.item_id)
    (expires, e_id), (overloaded, o_id), (refused, r_id) = [
        (t, i) for t, i in texts.items() if sum(t in u for u in texts) == 1][:3]
    api.batch_expire = {expires: 1}
    api.faults = {overloaded: ["503"], refused: ["400"]}
    report = eval_flow(benchmark="wemath", model=MODELS[provider], run_id="again", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, batch=True)

    n = len(items)
    first = -(-n // 8)
    assert len(api.batch_submissions) == first + 1
    again = api.batch_submissions[-1]["custom_ids"]
    rows = dict(query(db, "SELECT custom_id, item_id FROM batch_requests"))
    assert sorted(rows[c] for c in again) == sorted([e_id, o_id])
    got = {i: (s, a) for i, s, a in query(db, "SELECT item_id, status, attempts FROM responses")}
    assert len(got) == n == len(query(db, "SELECT * FROM responses"))   # none doubled
    assert got[e_id] == got[o_id] == ("ok", 2)
    assert got[r_id] == ("infra_failed", 1)
    (error,), = query(db, "SELECT error FROM responses WHERE item_id = ?", [r_id])
    assert "400" in error and "batch" in error
    assert report["run"]["status"] == "incomplete" and report["run"]["n_infra_failed"] == 1
    states = dict(query(db, "SELECT state, count(*) FROM batch_requests GROUP BY state"))
    assert states == {"answered": n, "rebatched": 2}
    assert {a for (a,) in query(db, "SELECT attempt FROM batches")} == {1, 2}


def test_batch_refuses_what_it_cannot_do_before_anything(data_dir, tmp_path):
    db = str(tmp_path / "x.duckdb")
    base = ["run", "--benchmark", "wemath", "--run-id", "x", "--db", db,
            "--data-dir", str(data_dir), "--batch"]
    env = cli_env(None, OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k")
    for extra, said in ((["--model", "baseline:random"], "--batch: --model baseline:random has "
                                                           "no batch API"),
                        (["--model", "openai:m", "--max-cost", "5"], "--max-cost 5: cannot be "
                                                                   "kept with --batch")):
        done = mathprobe(*base, *extra, env=env, timeout=120)
        assert done.returncode == 2, done.stderr
        assert len(error_lines(done.stderr)) == 1 and said in done.stderr
    assert not os.path.exists(db)


def flow_run_of(flow_run_id: str):
    import asyncio

    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            return (await client.read_flow_run(flow_run_id)).state
    return asyncio.run(read())


def newest_eval_flow_run():
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    async def read():
        async with get_client() as client:
            runs = await client.read_flow_runs(sort=FlowRunSort.START_TIME_DESC, limit=5)
            return [r for r in runs if r.state is not None and r.state.type.value == "PAUSED"]
    return asyncio.run(read())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_kill_9_while_the_batch_is_pending_submits_nothing_twice(provider, data_dir, db):
    """A real `mathprobe run --batch`, killed with SIGKILL while the double holds its batch in
    progress (its flow run Paused, AwaitingBatch); the same command without --batch is refused
    (it would pay twice); the same command again resumes polling the stored batches and
    finishes, every item submitted exactly once, the dead flow run marked Crashed."""
    api = FakeAPI(reply=varied, batch_hold=True).start()
    try:
        cmd = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
               MODELS[provider], "--run-id", "k", "--db", str(db), "--data-dir", str(data_dir),
               "--limit", str(LIMIT), "--batch", "--json"]
        env = cli_env(api, MATHPROBE_BATCH_POLL_S="0.3", MATHPROBE_BATCH_MAX_REQUESTS="12")
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 180
        paused = []
        n = len(wemath.select(wemath.load(data_dir).items, LIMIT))
        # every batch submitted, stored, polled, and the flow run paused on them
        while time.time() < deadline and proc.poll() is None and not paused:
            time.sleep(0.2)
            if sum(len(s["custom_ids"]) for s in api.batch_submissions) == n:
                paused = newest_eval_flow_run()
        assert proc.poll() is None, proc.stderr.read()[-3000:]
        assert paused and paused[0].state.name == "AwaitingBatch"
        assert "same command again" in paused[0].state.message
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        submitted = len(api.batch_submissions)
        assert submitted == -(-n // 12)
        # asked directly now, it would pay twice for what waits in the batches: refused
        direct = subprocess.run([a for a in cmd if a != "--batch"], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=120)
        assert direct.returncode == 2 and direct_calls(api) == 0
        assert error_lines(direct.stderr) == [f"error: run k: {n} request(s) wait in its batches "
                                              "at the service (paid for already); run the same "
                                              "command with --batch to collect them, then "
                                              "without it if you like"]

        api.batch_hold = False
        done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert len(api.batch_submissions) == submitted          # nothing submitted again
        ids = [line["custom_id"] for line in api.batch_lines]
        assert len(ids) == len(set(ids)) == n                   # each item exactly once
        assert "waiting for them, submitting none of them again" in done.stderr
        assert json.loads(done.stdout)["run"]["status"] == "completed"
        assert query(db, "SELECT count(*), count(DISTINCT item_id) FROM responses") == [(n, n)]
        assert flow_run_of(str(paused[0].id)).type.value == "CRASHED"
    finally:
        api.stop()


JUDGE_PROMPT = "You are an answer evaluation assistant"     # CMMaTH's judge prompt (authors')


def model_or_judge(payload: dict, prompt: str) -> str:
    """CMMaTH answers in varied ways; the judge says Yes when the reference is in the answer."""
    if JUDGE_PROMPT not in prompt:
        k = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 3
        return ["故选A", "The answer is 3.", "所以答案是 2"][k]
    reference = prompt[prompt.rfind("Reference Answer: ") + 18:].split("\n")[0].strip()
    response = prompt[prompt.rfind("Model Response: ") + 16:].split("\nJudgment Result")[0]
    verdict = "Yes" if reference and reference in response else "No"
    return f"The consistency of the answers is: <{verdict}>."


def test_a_judge_asked_in_batches_gives_the_direct_verdicts(api, data_dir, tmp_path):
    """--judge in the same run and `mathprobe judge --batch`: the judge's calls go in batches
    too (none directly), its verdicts and the figures are the direct run's, at half the cost."""
    from tests.support.cli import invoke

    api.reply = model_or_judge
    dbs = {k: str(tmp_path / f"{k}.duckdb") for k in ("direct", "batched")}
    run = dict(benchmark="cmmath", model="openai:fake-model", setting="text", run_id="cm",
               data_dir=str(data_dir), judge="openai:fake-judge", limit=60)
    direct = eval_flow(db=dbs["direct"], **run)
    calls = direct_calls(api)
    batched = eval_flow(db=dbs["batched"], batch=True, **run)
    assert direct_calls(api) == calls
    judged = [line for line in api.batch_lines
              if JUDGE_PROMPT in json.dumps(line["body"], ensure_ascii=False)]
    (asked,), = query(dbs["direct"], "SELECT count(*) FROM responses WHERE run_id = "
                                     "'cm@judge:openai:fake-judge'")
    assert 0 < len(judged) == asked
    assert batched["tables"] == direct["tables"]
    # a second judge afterwards, by the command line, from Anthropic's batches
    before = len(api.batch_submissions)
    for name, db in dbs.items():
        invoke("judge", "cm", "--judge", "anthropic:claude-haiku-4-5", "--db", db,
               "--data-dir", str(data_dir), *(["--batch"] if name == "batched" else []))
    assert [s["service"] for s in api.batch_submissions[before:]] == ["anthropic"]
    assert direct_calls(api) > calls                       # the direct judge's calls
    sql = ("SELECT grader, item_id, correct FROM verdicts WHERE grader LIKE 'judge:%' "
           "OR grader LIKE 'cascade:%' ORDER BY ALL")
    assert query(dbs["batched"], sql) == query(dbs["direct"], sql)
    cost = ("SELECT run_id, sum(cost_usd) FROM responses WHERE run_id LIKE 'cm@judge:%' "
            "GROUP BY run_id ORDER BY run_id")
    for (jrun, got), (_, want) in zip(query(dbs["batched"], cost), query(dbs["direct"], cost)):
        assert want is None and got is None or got == pytest.approx(want / 2), jrun


def test_a_server_without_batch_endpoints_is_one_line(api, data_dir, db):
    """vLLM's OpenAI server has no /v1/files nor /v1/batches: the first submission says so in
    one line; nothing is asked directly, nothing is left waiting."""
    from mathprobe.errors import MathprobeError

    api.batch_api = False
    with pytest.raises(MathprobeError) as said:
        eval_flow(benchmark="wemath", model="openai:Qwen/Qwen2-VL-7B-Instruct", run_id="v",
                  db=str(db), data_dir=str(data_dir), limit=LIMIT, batch=True)
    assert str(said.value).startswith("--batch: submitting a batch of ")
    assert "HTTP 404" in str(said.value) and "\n" not in str(said.value)
    assert direct_calls(api) == 0
    assert query(db, "SELECT status FROM batches") == [("void",)]
    assert query(db, "SELECT count(*) FROM responses") == [(0,)]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_submission_whose_id_was_never_stored_is_found_not_sent_again(provider, api,
                                                                       data_dir, db):
    """A command that died after the service took its batch but before it stored the id left
    the submission `submitting`: the next one finds the batch at the service (OpenAI: by the
    submission's key in its metadata; Anthropic: created since, as many requests, claimed by
    no other submission) and waits for it; a submission the service never got is void and its
    requests asked again."""
    import asyncio

    from mathprobe import registry
    from mathprobe.backends import get_batches
    from mathprobe.backends.batches import custom_id
    from mathprobe.runs import LazyRequests
    from mathprobe.runs.batching import BatchRun
    from mathprobe.store import open_store

    bench = registry.get("wemath")
    items = bench.select(bench.load(data_dir).items, 12)[:6]
    by_id = {it.item_id: it for it in items}
    model, params = MODELS[provider], dict(bench.default_params)

    def requests_for(asks):
        return LazyRequests(bench, [by_id[i] for i, _ in asks], model, bench.default_setting,
                            params)

    requests = list(requests_for([(i, 0) for i in by_id]))
    rows = [(custom_id(r.item_id, r.request_hash), r.item_id, r.request_hash, 0)
            for r in requests]
    store = open_store(db)
    endpoint = get_batches(model).endpoint
    store.open_submission("lost", "r", provider, model, endpoint, 1, rows[:4])
    store.open_submission("never", "r", provider, model, endpoint, 1, rows[4:])

    async def the_dead_command_submits():
        client = get_batches(model)
        try:
            return (await client.submit([client.entry(c, r)[0] for (c, _, _, _), r
                                         in zip(rows[:4], requests)], "lost"))[0]
        finally:
            await client.aclose()
    lost = asyncio.run(the_dead_command_submits())

    counts = BatchRun(store, "r", model, params, requests_for).ask([(i, 0) for i in by_id])
    assert counts == {"ok": 6}
    assert len(api.batch_submissions) == 2                      # the lost one, the void's
    assert sorted(api.batch_submissions[1]["custom_ids"]) == sorted(c for c, *_ in rows[4:])
    got = dict(query(db, "SELECT submission, batch_id FROM batches WHERE submission "
                         "IN ('lost', 'never')"))
    assert got == {"lost": lost, "never": None}
    assert query(db, "SELECT status FROM batches WHERE submission = 'never'") == [("void",)]
    assert query(db, "SELECT count(DISTINCT item_id), count(*) FROM responses") == [(6, 6)]
