"""The eval flow over the real OpenAI and Anthropic SDKs, against a loopback server that injects
rate limits, server errors, timeouts, malformed bodies and dropped connections."""
from __future__ import annotations

import json

import duckdb
import pytest

from mathprobe.benchmarks import wemath
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from mathprobe.store import close_all
from tests.support.fake_api import FakeAPI
from tests.support.report import figure


def eval_flow(**params):
    """The eval flow as the command line runs it: its report, also for a run that ended
    incomplete (whose flow run ends Failed 'Incomplete: ...')."""
    return call_flow(_eval_flow, **params)


pytestmark = pytest.mark.usefixtures("prefect_harness")

CANARY = "sk-canary-7f3a9c1e5d2b4a68"
LIMIT = 30                     # whole problems: a stratified sample of 9 (6 two-step, 3 three-step)


@pytest.fixture
def api(monkeypatch):
    server = FakeAPI(retry_after=0.05, slow_s=2.0).start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_url)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_WAIT_S", "0.2")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "4")
    # under the fault `slow` (2 s), yet not tripped by a loaded machine (0.5 s once was, and a
    # timed-out request is sent again: one more request than the test counted)
    monkeypatch.setenv("MATHPROBE_REQUEST_TIMEOUT_S", "1.0")
    yield server
    server.stop()


def query(db, sql):
    close_all()
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def asked_since(api, served: int, texts: list[str]) -> set[str | None]:
    """Which of `texts` the prompts asked after the server's `served`-th request hold (None for
    a prompt holding none); a request that timed out on a loaded machine and was sent again
    asks the same text."""
    return {next((t for t in texts if t in r["prompt"]), None) for r in api.requests[served:]}


def unique_prompts(data_dir, n):
    """Items of the run whose question+options text is unique, usable as fault keys."""
    items = wemath.select(wemath.load(data_dir).items, LIMIT)
    texts = [f"Question: {it.question}\nOption: {it.payload['option']}" for it in items]
    unique = [(it, t) for it, t in zip(items, texts) if texts.count(t) == 1]
    assert len(unique) >= n
    return unique[:n]


FAULTS = {   # name -> (fault script, expected status, expected attempts)
    "rate_limited": (["429", "429"], "ok", 3),
    "rate_limited_ms": (["429ms"], "ok", 2),
    "server_errors": (["500", "503"], "ok", 3),
    "timeout": (["slow"], "ok", 2),
    "malformed": (["malformed"], "ok", 2),
    "empty_body": (["empty"], "ok", 2),
    "dropped": (["drop"], "ok", 2),
    "refused": (["refuse"], "refused", 1),
    "bad_request": (["400"], "infra_failed", 1),
    "down": (None, "infra_failed", 4),           # 503 on every attempt
}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_faults_end_ok_or_failed_never_wrong(provider, api, data_dir, db):
    chosen = unique_prompts(data_dir, len(FAULTS))
    expect = {}
    for (item, text), (name, (script, status, attempts)) in zip(chosen, FAULTS.items()):
        if script is None:
            api.always[text] = "503"
        else:
            api.faults[text] = list(script)
        expect[item.item_id] = (name, status, attempts)
        api.answers[text] = item.gold          # the server answers these correctly
    model = f"{provider}:fake-model"
    report = eval_flow(benchmark="wemath", model=model, run_id="faults", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, concurrency=8)

    rows = query(db, "SELECT item_id, status, attempts, error FROM responses")
    assert len(rows) == LIMIT and len({r[0] for r in rows}) == LIMIT   # none missing or doubled
    got = {r[0]: r for r in rows}
    for iid, (name, status, attempts) in expect.items():
        _, st, att, error = got[iid]
        assert (st, att) == (status, attempts), name
        if status == "infra_failed":
            assert error and ("HTTP 503" in error or "HTTP 400" in error), (name, error)
    # every fault that was eventually answered is graded on its (correct) answer
    verdicts = dict(query(db, "SELECT item_id, correct FROM item_verdicts"))
    for iid, (name, status, _) in expect.items():
        if status == "ok":
            assert verdicts[iid] is True, name
        elif status == "refused":
            assert verdicts[iid] is False, name           # a refusal is the model's answer
        else:
            assert iid not in verdicts, name              # a failed call is never graded
    assert len(verdicts) == LIMIT - 2
    assert report["run"]["n_infra_failed"] == 2 and report["run"]["status"] == "completed" or \
        report["run"]["status"] == "incomplete"
    failed_problems = {iid.split("/")[0] for iid, e in expect.items() if e[1] == "infra_failed"}
    problems = {it.group_id for it in wemath.select(wemath.load(data_dir).items, LIMIT)}
    assert figure(report, "score.strict")["n"] == len(problems) - len(failed_problems)
    assert any(note.startswith(f"{len(failed_problems)} problem(s) left out of every figure")
               for note in report["notes"]), report["notes"]

    # Retry-After was honoured between the 429 and the retry
    key = next(t for (it, t), n in zip(chosen, FAULTS) if n == "rate_limited")
    times = [r["at"] for r in api.requests if key in r["prompt"]]
    assert len(times) == 3 and min(b - a for a, b in zip(times, times[1:])) >= 0.045

    # the requests carried the image and the paper's generation settings
    body = api.requests[0]["body"]
    content = body["messages"][0]["content"]
    assert body["model"] == "fake-model" and body["temperature"] == 0.0
    assert body["max_tokens"] == 1024
    if provider == "openai":
        assert content[0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    else:
        assert content[0]["source"]["media_type"] == "image/png"
        assert content[0]["source"]["data"].startswith("iVBOR")

    # --retry-failed re-drives only the failed calls, once the outage is over
    api.always.clear()
    served = api.served
    report = eval_flow(benchmark="wemath", model=model, run_id="faults", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, concurrency=8, retry_failed=True)
    failed = [t for (_, t), e in zip(chosen, FAULTS.values()) if e[1] == "infra_failed"]
    assert len(failed) == 2 and asked_since(api, served, failed) == set(failed)
    assert report["run"]["n_infra_failed"] == 0 and report["run"]["status"] == "completed"
    assert figure(report, "score.strict")["n"] == len(problems)
    counts = query(db, "SELECT status, count(*) FROM responses GROUP BY ALL ORDER BY 1")
    assert dict(counts) == {"infra_failed": 2, "ok": LIMIT - 1, "refused": 1}  # history kept
    # and a plain re-run asks nothing at all
    served = api.served
    eval_flow(benchmark="wemath", model=model, run_id="faults", db=str(db),
              data_dir=str(data_dir), limit=LIMIT, concurrency=8)
    assert api.served == served


def test_cost_ledger_and_max_cost(api, data_dir, db, tmp_path, monkeypatch):
    prices = tmp_path / "prices.toml"
    prices.write_text('[openai]\n"pricey" = { input = 1000.0, output = 2000.0 }\n')
    monkeypatch.setenv("MATHPROBE_PRICES", str(prices))
    from mathprobe.backends import prices as price_module
    price_module.load.cache_clear()

    report = eval_flow(benchmark="wemath", model="openai:pricey", run_id="cost", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, concurrency=1, max_cost=0.5)
    run = report["run"]
    assert run["status"] == "stopped_max_cost"
    assert 0 < run["n_ok"] < LIMIT and run["n_not_asked"] == LIMIT - run["n_ok"]
    # cost = tokens x price, per response and per run
    rows = query(db, "SELECT input_tokens, output_tokens, cost_usd FROM responses")
    for tin, tout, cost in rows:
        assert cost == pytest.approx((tin * 1000 + tout * 2000) / 1e6)
    spent = sum(r[2] for r in rows)
    assert run["cost_usd"] == pytest.approx(spent)
    one_call = max(r[2] for r in rows)
    assert 0.5 <= spent < 0.5 + one_call + 1e-9         # stopped at the first call past the cap
    assert query(db, "SELECT status, cost_usd FROM runs") == [("stopped_max_cost", pytest.approx(spent))]

    # a higher cap continues where it stopped, asking only what was not asked
    served = api.served
    report = eval_flow(benchmark="wemath", model="openai:pricey", run_id="cost", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, concurrency=4, max_cost=100)
    assert api.served - served == LIMIT - run["n_ok"]
    assert report["run"]["status"] == "completed" and report["run"]["n_ok"] == LIMIT


def test_canary_key_never_stored_or_logged(api, data_dir, db, capfd):
    text = unique_prompts(data_dir, 1)[0][1]
    api.always[text] = "401"                       # an auth error message gets logged too
    report = eval_flow(benchmark="wemath", model="openai:fake-model", run_id="canary",
                       db=str(db), data_dir=str(data_dir), limit=LIMIT, concurrency=4)
    # the key was really used ...
    assert all(r["headers"]["authorization"] == f"Bearer {CANARY}" for r in api.requests)
    # ... and is nowhere in the DuckDB file, the report, the logs or the artifacts
    close_all()
    con = duckdb.connect(str(db), read_only=True)
    for (table,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
        dump = json.dumps(con.execute(f"SELECT * FROM {table}").fetchall(), default=str)
        assert CANARY not in dump, table
    con.close()
    assert CANARY not in db.read_bytes().decode("latin-1")
    assert CANARY not in json.dumps(report, default=str)
    out, err = capfd.readouterr()
    assert CANARY not in out + err

    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter

    async def remote():
        async with get_client() as client:
            logs, offset = [], 0
            while batch := await client.read_logs(LogFilter(), limit=200, offset=offset):
                logs += batch
                offset += len(batch)
            artifacts = await client.read_artifacts()
            runs = await client.read_flow_runs()
            return logs, artifacts, runs

    import time
    for _ in range(40):          # logs reach the API in batches, a moment after the flow ends
        logs, artifacts, runs = asyncio.run(remote())
        messages = " ".join(log.message for log in logs)
        if "HTTP 401" in messages:
            break
        time.sleep(0.25)
    assert "HTTP 401" in messages                  # the failure itself was logged ...
    assert CANARY not in messages                  # ... without the key
    assert CANARY not in json.dumps([a.model_dump(mode="json") for a in artifacts])
    assert CANARY not in json.dumps([r.model_dump(mode="json") for r in runs])


def test_key_from_a_prefect_secret_block(api, data_dir, db, monkeypatch):
    from prefect.blocks.system import Secret

    Secret(value="sk-from-block-1234").save("openai-api-key", overwrite=True)
    monkeypatch.delenv("OPENAI_API_KEY")
    try:
        report = eval_flow(benchmark="wemath", model="openai:fake-model", run_id="block",
                           db=str(db), data_dir=str(data_dir), limit=6)
    finally:
        Secret(value="unused-placeholder").save("openai-api-key", overwrite=True)
    assert report["run"]["n_ok"] == len(wemath.select(wemath.load(data_dir).items, 6)) > 0
    assert {r["headers"]["authorization"] for r in api.requests} == {"Bearer sk-from-block-1234"}


def test_missing_key_fails_before_any_work(api, data_dir, db, monkeypatch):
    from mathprobe.errors import MathprobeError

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(MathprobeError, match="set ANTHROPIC_API_KEY or create a Prefect Secret "
                                             "block named 'anthropic-api-key'"):
        eval_flow(benchmark="wemath", model="anthropic:m", run_id="nokey", db=str(db),
                  data_dir=str(data_dir), limit=6)
    assert api.served == 0 and not db.exists()


def test_replay_through_the_flow_gives_the_authors_figures(data_dir, db):
    ref = data_dir / "wemath" / "reference_cases"
    expected = json.loads((ref / "v1_expected.json").read_text())
    report = eval_flow(benchmark="wemath", model=f"replay:{ref / 'v1_responses.json'}",
                       run_id="replayed", db=str(db), data_dir=str(data_dir), concurrency=64)
    assert tuple(figure(report, k)["count"] for k in ("ik", "ig", "cm.strict", "rm_rate.strict")) \
        == (expected["counts"]["InsufficientKnowledge"],
            expected["counts"]["InadequateGeneralization"],
            expected["counts"]["CompleteMastery_strict"],
            expected["counts"]["RoteMemorization_strict"])
    assert figure(report, "score.strict")["value"] == pytest.approx(expected["score_strict"])


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_empty_completions_are_faults_never_wrong_answers(provider, api, data_dir, db):
    """A 200 with empty content (OpenAI `content: ""`, Anthropic `content: []`) and a normal
    stop is retried and, if it persists, stored infra_failed with its reason: never graded
    wrong, and --retry-failed recovers it. An empty answer cut by the token limit is the
    model's own answer."""
    chosen = unique_prompts(data_dir, 6)
    always, once, length = chosen[:4], chosen[4], chosen[5]
    for item, text in chosen:
        api.answers[text] = item.gold
    for _, text in always:
        api.always[text] = "blank"
    api.faults[once[1]] = ["blank"]
    api.faults[length[1]] = ["blank_length"]
    model = f"{provider}:fake-model"
    eval_flow(benchmark="wemath", model=model, run_id="blank", db=str(db),
              data_dir=str(data_dir), limit=LIMIT, concurrency=8)

    got = {r[0]: r[1:] for r in query(db, "SELECT item_id, status, attempts, error, response "
                                          "FROM current_responses")}
    for item, _ in always:
        status, attempts, error, response = got[item.item_id]
        assert (status, attempts, response) == ("infra_failed", 4, None)
        assert error.startswith("empty completion (stop reason ") and "gave up" in error
    assert got[once[0].item_id][:2] == ("ok", 2)
    assert got[length[0].item_id][:2] == ("ok", 1) and got[length[0].item_id][3] == ""
    # no empty answer but the truncated one was graded
    graded_empty = query(db, "SELECT v.item_id FROM item_verdicts v JOIN responses r "
                             "USING (response_id) WHERE coalesce(r.response, '') = ''")
    assert graded_empty == [(length[0].item_id,)]

    api.always.clear()                       # the provider recovers: --retry-failed re-drives
    served = api.served
    report = eval_flow(benchmark="wemath", model=model, run_id="blank", db=str(db),
                       data_dir=str(data_dir), limit=LIMIT, concurrency=8, retry_failed=True)
    assert asked_since(api, served, [t for _, t in always]) == {t for _, t in always}
    assert report["run"]["n_infra_failed"] == 0 and report["run"]["status"] == "completed"
    verdicts = dict(query(db, "SELECT item_id, correct FROM item_verdicts"))
    assert all(verdicts[item.item_id] is True for item, _ in always + [once])


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_refused_connection_is_stored_as_one_not_as_a_timeout(provider, data_dir, db,
                                                                 monkeypatch):
    """A server that is down (nothing listens on its port) refuses at once; the SDKs' aiohttp
    transport reports that as a connect timeout, and it was stored as "timeout", sending the
    user after a slow server instead of a dead one."""
    from mathprobe.ports import free_port

    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("OPENAI_BASE_URL", down + "/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", down)
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", "sk-test-down")
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_WAIT_S", "0.05")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "2")
    model = "openai:gpt-4o-mini" if provider == "openai" else "anthropic:claude-3-5-haiku"
    eval_flow(benchmark="wemath", model=model, run_id="down", db=str(db),
              data_dir=str(data_dir), limit=6)
    errors = {e for (e,) in query(db, "SELECT DISTINCT error FROM responses")}
    assert errors and all(e.startswith("connection refused") and "timeout" not in e
                          for e in errors), errors
