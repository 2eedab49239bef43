"""Reasoning models (issue 35 items 1-3): what each service is sent, their reasoning stored apart
from the answer, and a reply cut at the token cap before its answer stored `truncated`, never
graded. Against the loopback doubles of OpenAI, Anthropic and a vLLM-style server
(tests/support/fake_api.py), which answer as the services' documentation says: OpenAI's
reasoning models refuse max_tokens and temperature with the real 400 bodies, Anthropic refuses a
thinking budget against its rules, and every double cuts its reply at the token cap it was sent."""
from __future__ import annotations

import asyncio
import hashlib
import json
import re

import httpx
import pytest

from mathprobe.backends import get_backend, registry
from mathprobe.benchmarks import wemath
from mathprobe.errors import MathprobeError
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from mathprobe.items import Request
from mathprobe.store import close_all
from tests.support.fake_api import FakeAPI
from tests.support.report import figure
from tests.support.stores import query

WEMATH = {"temperature": 0.0, "max_tokens": 1024}        # the benchmark's (the paper's) params


def eval_flow(**params):
    return call_flow(_eval_flow, **params)


@pytest.fixture
def api(monkeypatch):
    server = FakeAPI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-reasoning")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-reasoning")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")
    yield server
    server.stop()


def complete(spec: str, params: dict, prompt: str = "What is 2 + 2?"):
    async def go():
        backend = get_backend(spec)
        try:
            return await backend.complete(Request("q1", backend.model, prompt, params=params))
        finally:
            await backend.aclose()
    return asyncio.run(go())


# -- 1. what each model is sent, checked before anything is asked -----------------------------

@pytest.mark.parametrize("spec, given, options, sent", [
    ("openai:o4-mini", {"max_tokens": 4096}, {"reasoning_effort": "low"},
     {"max_completion_tokens": 4096, "reasoning_effort": "low"}),
    # the benchmark's temperature 0 and 1024-token cap are a plain model's: not sent
    ("openai:o4-mini", {}, {}, {}),
    ("openai:o4-mini-2025-04-16", {"temperature": 1.0}, {}, {"temperature": 1.0}),
    ("openai:gpt-5-mini", {}, {"reasoning_effort": "minimal"}, {"reasoning_effort": "minimal"}),
    ("openai:my-r1#reasoning", {"max_tokens": 8000}, {},
     {"max_completion_tokens": 8000}),
    ("openai:gpt-4o", {"max_tokens": 4096}, {}, {"temperature": 0.0, "max_tokens": 4096}),
    ("anthropic:claude-opus-4-5", {"max_tokens": 4096}, {"thinking_budget": 2048},
     {"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048}}),
    # no --max-tokens: the budget plus the benchmark's cap for the answer
    ("anthropic:claude-opus-4-5", {}, {"thinking_budget": 2048},
     {"max_tokens": 3072, "thinking": {"type": "enabled", "budget_tokens": 2048}}),
    ("anthropic:claude-opus-4-5", {}, {}, WEMATH),
])
def test_what_a_model_is_sent(spec, given, options, sent):
    assert registry.generation_params(spec, WEMATH, given, options) == sent


@pytest.mark.parametrize("spec, given, options, error", [
    ("openai:o4-mini", {"temperature": 0.0}, {},
     "--temperature 0: openai:o4-mini takes no temperature but the default 1"),
    ("openai:gpt-4o", {}, {"reasoning_effort": "low"},
     "--reasoning-effort low: openai:gpt-4o is not a reasoning model (the table lists o1, "),
    ("openai:o4-mini", {}, {"reasoning_effort": "minimal"},
     "--reasoning-effort minimal: openai:o4-mini takes low, medium, high"),
    ("openai:o4-mini", {}, {"reasoning_effort": "huge"},
     "--reasoning-effort 'huge': one of minimal, low, medium, high"),
    ("openai:o4-mini", {}, {"thinking_budget": 2048},
     "--thinking-budget: an option of anthropic:MODEL models, not of openai:o4-mini"),
    ("anthropic:claude-opus-4-5", {}, {"thinking_budget": 512},
     "--thinking-budget 512: must be at least 1024"),
    ("anthropic:claude-opus-4-5", {"max_tokens": 2048}, {"thinking_budget": 2048},
     "--max-tokens 2048: must be above --thinking-budget 2048"),
    ("anthropic:claude-opus-4-5", {"temperature": 0.0}, {"thinking_budget": 2048},
     "--temperature 0: Anthropic's extended thinking takes no temperature but 1"),
    ("anthropic:claude-3-5-haiku-latest", {}, {"thinking_budget": 2048},
     "--thinking-budget 2048: anthropic:claude-3-5-haiku-latest takes no extended thinking"),
    ("baseline:random", {}, {"reasoning_effort": "low"},
     "--reasoning-effort: an option of openai:MODEL models, not of baseline:random"),
    ("triton:lmm#reasoning", {}, {},
     "--model 'triton:lmm#reasoning': triton: serves no reasoning models"),
])
def test_a_setting_the_model_refuses_is_one_error_before_anything(spec, given, options, error):
    with pytest.raises(MathprobeError) as caught:
        registry.generation_params(spec, WEMATH, given, options)
    assert str(caught.value).startswith(error), str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_table_of_your_own_adds_a_reasoning_model(tmp_path, monkeypatch):
    from mathprobe.backends import reasoning

    own = tmp_path / "reasoning.toml"
    own.write_text('[openai]\n"qwq" = { temperature = true, max_tokens = "max_tokens", '
                   'effort = [] }\n')
    monkeypatch.setenv("MATHPROBE_REASONING_MODELS", str(own))
    reasoning.load.cache_clear()
    try:
        assert registry.generation_params("openai:qwq", WEMATH, {"temperature": 0.6,
                                                                 "max_tokens": 9000}) == \
            {"temperature": 0.6, "max_tokens": 9000}
        assert registry.generation_params("openai:o3", WEMATH) == {}     # the table still holds
    finally:
        reasoning.load.cache_clear()


# -- the doubles answer as the services' documentation says ------------------------------------

def test_the_openai_double_refuses_what_its_reasoning_models_refuse(api):
    url = api.openai_url + "/chat/completions"
    messages = [{"role": "user", "content": "hi"}]
    got = httpx.post(url, json={"model": "o4-mini", "messages": messages, "max_tokens": 10})
    assert got.status_code == 400 and got.json() == {"error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                   "'max_completion_tokens' instead.", "type": "invalid_request_error",
        "param": "max_tokens", "code": "unsupported_parameter"}}
    got = httpx.post(url, json={"model": "o4-mini", "messages": messages, "temperature": 0})
    assert got.status_code == 400 and got.json()["error"] == {
        "message": "Unsupported value: 'temperature' does not support 0 with this model. Only "
                   "the default (1) value is supported.", "type": "invalid_request_error",
        "param": "temperature", "code": "unsupported_value"}
    cut = httpx.post(url, json={"model": "o4-mini", "messages": messages,
                                "max_completion_tokens": 5}).json()
    assert cut["choices"][0]["finish_reason"] == "length"
    assert cut["choices"][0]["message"]["content"] == ""
    assert cut["usage"]["completion_tokens_details"]["reasoning_tokens"] == 5


# -- 2 and 3. each backend over real HTTP: reasoning apart, cut replies truncated --------------

LONG = " ".join(f"step{k}" for k in range(5000))   # more reasoning than any cap below


def test_openai_reasoning_model_counts_its_reasoning_and_a_cut_is_truncated(api):
    done = complete("openai:o4-mini", {"max_completion_tokens": 4096, "reasoning_effort": "low"})
    body = api.requests[-1]["body"]
    assert "max_tokens" not in body and "temperature" not in body
    assert (body["max_completion_tokens"], body["reasoning_effort"]) == (4096, "low")
    assert done.status == "ok" and done.text.endswith("<Answer>: <<A>>")
    assert done.reasoning is None and done.reasoning_tokens == 40     # hidden, counted
    assert done.output_tokens == 40 + len(done.text.split())          # inside the output
    api.reply = lambda payload, prompt: f"<think>{LONG}</think><Answer>: <<A>>"
    cut = complete("openai:o4-mini", {"max_completion_tokens": 1024})
    assert (cut.status, cut.text, cut.reasoning_tokens) == ("truncated", "", 1024)
    assert cut.error == "cut at the token cap (1024) inside the reasoning: 1024 tokens out"
    # a judge's or probe's fixed params reach a reasoning model as it takes them
    complete("openai:o4-mini", {"temperature": 0.0, "max_tokens": 2048})
    assert {"max_completion_tokens": 2048}.items() <= api.requests[-1]["body"].items()
    assert "temperature" not in api.requests[-1]["body"]


@pytest.mark.parametrize("parser", [False, True], ids=["think-tags", "reasoning_content"])
def test_an_open_reasoning_model_keeps_its_thinking_apart(api, parser):
    api.reasoning_parser = parser
    api.reply = lambda payload, prompt: ("<think>Maybe <Answer>: <<B>>. No: it is A.</think>"
                                         "<Thought process>: <<sum>> <Answer>: <<A>>")
    whole = complete("openai:deepseek-r1", {"max_tokens": 100})
    assert (whole.status, whole.text) == ("ok", "<Thought process>: <<sum>> <Answer>: <<A>>")
    assert whole.reasoning == "Maybe <Answer>: <<B>>. No: it is A."
    cut = complete("openai:deepseek-r1", {"max_tokens": 3})      # inside the <think> block
    assert cut.status == "truncated" and not cut.text
    assert cut.reasoning == "Maybe <Answer>: <<B>>."
    assert cut.error.startswith("cut at the token cap (3) ")


def test_a_chat_template_that_opened_the_think_block_is_read_too(api):
    api.reply = lambda payload, prompt: "I add them: 4.</think>\n\n<Answer>: <<A>>"
    done = complete("openai:qwen3#reasoning", {"max_completion_tokens": 100})
    assert (done.text, done.reasoning) == ("<Answer>: <<A>>", "I add them: 4.")


def test_a_plain_reply_cut_with_its_answer_given_is_graded_as_before(api):
    api.reply = lambda payload, prompt: "<Answer>: <<A>> and then more words follow here"
    done = complete("openai:gpt-4o", {"max_tokens": 4})
    assert (done.status, done.text, done.reasoning) == ("ok", "<Answer>: <<A>> and then", None)
    assert done.reasoning_tokens is None


@pytest.mark.parametrize("reported", [False, True])
def test_anthropic_thinking_blocks_apart_and_cut_inside_them(api, reported):
    api.thinking_tokens_reported = reported
    api.reply = lambda payload, prompt: "<think>I think hard.</think><Answer>: <<C>>"
    thinking = {"type": "enabled", "budget_tokens": 2048}
    done = complete("anthropic:claude-opus-4-5", {"max_tokens": 4096, "thinking": thinking})
    body = api.requests[-1]["body"]
    assert body["thinking"] == thinking and "temperature" not in body
    assert (done.status, done.text, done.reasoning) == ("ok", "<Answer>: <<C>>", "I think hard.")
    # Anthropic counts thinking inside output_tokens; how much of it only where it says so
    assert done.output_tokens == 5
    assert done.reasoning_tokens == (3 if reported else None)
    api.reply = lambda payload, prompt: f"<think>{LONG}</think><Answer>: <<C>>"
    cut = complete("anthropic:claude-opus-4-5", {"max_tokens": 1100, "thinking": {
        "type": "enabled", "budget_tokens": 1024}})
    assert (cut.status, cut.text) == ("truncated", "")
    assert cut.reasoning.startswith("step0 step1") and cut.output_tokens == 1100
    assert cut.error == "cut at the token cap (1100) inside the thinking: 1100 tokens out"


def test_the_anthropic_double_refuses_thinking_against_its_rules(api):
    url = api.anthropic_url + "/v1/messages"
    base = {"model": "claude-opus-4-5", "messages": [{"role": "user", "content": "hi"}]}
    for extra, said in (
            ({"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 512}},
             "greater than or equal to 1024"),
            ({"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 2048}},
             "`max_tokens` must be greater than `thinking.budget_tokens`"),
            ({"max_tokens": 4096, "temperature": 0,
              "thinking": {"type": "enabled", "budget_tokens": 2048}},
             "`temperature` may only be set to 1 when thinking is enabled")):
        got = httpx.post(url, json={**base, **extra})
        assert got.status_code == 400, extra
        assert got.json()["error"]["type"] == "invalid_request_error"
        assert said in got.json()["error"]["message"]
    reply = httpx.post(url, json={**base, "max_tokens": 4096, "thinking": {
        "type": "enabled", "budget_tokens": 2048}}).json()
    assert [b["type"] for b in reply["content"]] == ["thinking", "text"]
    assert reply["content"][0]["signature"]


# -- whole runs ---------------------------------------------------------------------------------

def _item_key(payload: dict) -> tuple[str, str]:
    """A request's (prompt, digest of its image) as the double sees it, OpenAI's or Anthropic's
    wire format: a WE-MATH question's text is not unique on its own."""
    content = payload["messages"][-1]["content"]
    text = next(c["text"] for c in content if c["type"] == "text")
    image = next((c["image_url"]["url"].partition(",")[2] if c["type"] == "image_url"
                  else c["source"]["data"] for c in content if c["type"] != "text"), "")
    return text, hashlib.sha256(image.encode()).hexdigest()


def _wemath_keys(data_dir, limit):
    """(item, the key of its request) of a WE-MATH --limit run, built as the run builds it."""
    import base64

    from mathprobe import registry as benchmarks
    from mathprobe.runs import build_request

    bench = benchmarks.get("wemath")
    out = []
    for it in wemath.select(wemath.load(data_dir).items, limit):
        req = build_request(bench, it, "m", bench.default_setting, {})
        digest = hashlib.sha256(base64.b64encode(req.image).decode().encode()).hexdigest()
        out.append((it, (req.prompt, digest)))
    return out


@pytest.mark.usefixtures("prefect_harness")
@pytest.mark.parametrize("parser", [False, True], ids=["think-tags", "reasoning_content"])
def test_no_right_answer_is_graded_wrong_when_the_thinking_is_cut(api, data_dir, db, parser):
    """The issue's case: 80 right answers, 12 of them cut inside <think> after a wrong first
    guess. The 12 are `truncated` and left out (never graded wrong); the figures stand on the
    68 whole answers (whole WE-MATH problems: those with a cut question are left out, said in
    the notes); a larger --max-tokens then asks only the 12 again."""
    api.reasoning_parser = parser
    keyed = _wemath_keys(data_dir, 80)
    assert len(keyed) == 80
    cut = {key for _, key in keyed[2::6][:12]}
    assert len(cut) == 12
    gold = {key: it.gold for it, key in keyed}

    def reply(payload, prompt):
        key = _item_key(payload)
        right, wrong = gold[key], "B" if gold[key] != "B" else "C"
        thinking = (f"First guess <Answer>: <<{wrong}>>. " + " ".join(["checking"] * 300)
                    if key in cut else "Short check.")
        return f"<think>{thinking} So it is {right}.</think><Answer>: <<{right}>>"

    api.reply = reply
    run = dict(benchmark="wemath", model="openai:deepseek-r1#reasoning", run_id="r1",
               db=str(db), data_dir=str(data_dir), limit=80, concurrency=16)
    report = eval_flow(**run, max_tokens=200)
    assert {"max_completion_tokens": 200}.items() <= api.requests[0]["body"].items()
    assert "temperature" not in api.requests[0]["body"]          # the model's own default
    summary = report["run"]
    assert (summary["n_ok"], summary["n_truncated"], summary["status"]) == (68, 12, "incomplete")
    statuses = dict(query(db, "SELECT status, count(*) FROM current_responses GROUP BY ALL"))
    assert statuses == {"ok": 68, "truncated": 12}
    verdicts = query(db, "SELECT correct, count(*) FROM item_verdicts GROUP BY ALL")
    assert verdicts == [(True, 68)]                               # none graded wrong
    cut_items = {it.item_id for it, key in keyed if key in cut}
    problems = {it.group_id for it, _ in keyed}
    cut_problems = {it.group_id for it, key in keyed if key in cut}
    assert figure(report, "score.strict")["n"] == len(problems - cut_problems)
    assert figure(report, "score.strict")["value"] == pytest.approx(1.0)
    assert report["notes"][0].startswith("12 answer(s) cut at 200 tokens inside the reasoning "
                                         "or before the answer (truncated), left out of every "
                                         "figure like failed calls: re-ask them with a larger "
                                         "--max-tokens")
    # the reasoning is apart from the answer, for the cut and the whole alike
    rows = query(db, "SELECT item_id, status, response, reasoning FROM current_responses")
    for item_id, status, response, reasoning in rows:
        assert "<think>" not in (response or "") and reasoning
        if item_id in cut_items:
            assert status == "truncated" and not response and "First guess" in reasoning
        else:
            assert response.startswith("<Answer>: <<") and reasoning.startswith("Short check")

    # a larger --max-tokens asks the 12 again, and only them
    served = api.served
    report = eval_flow(**run, max_tokens=1000)
    assert api.served - served == 12
    assert {r["body"]["max_completion_tokens"] for r in api.requests[served:]} == {1000}
    assert (report["run"]["n_ok"], report["run"]["n_truncated"]) == (80, 0)
    assert report["run"]["status"] == "completed"
    assert query(db, "SELECT correct, count(*) FROM item_verdicts GROUP BY ALL") == [(True, 80)]
    assert figure(report, "score.strict")["n"] == len(problems)
    assert query(db, "SELECT params FROM runs")[0][0] == '{"max_completion_tokens": 1000}'
    # the history is kept: the cut replies stay in responses, superseded
    assert query(db, "SELECT count(*) FROM responses WHERE status = 'truncated'") == [(12,)]


@pytest.mark.usefixtures("prefect_harness")
def test_an_openai_reasoning_run_sends_nothing_refused_and_prices_its_reasoning(
        api, data_dir, db, tmp_path, monkeypatch):
    prices = tmp_path / "prices.toml"
    prices.write_text('[openai]\n"o4-mini" = { input = 1.10, output = 4.40 }\n')
    monkeypatch.setenv("MATHPROBE_PRICES", str(prices))
    from mathprobe.backends import prices as price_module
    price_module.load.cache_clear()
    keyed = _wemath_keys(data_dir, 6)
    items, long_one = [it for it, _ in keyed], keyed[0][1]
    api.reply = lambda payload, prompt: (f"<think>{LONG}</think><Answer>: <<A>>"
                                         if _item_key(payload) == long_one else None)
    report = eval_flow(benchmark="wemath", model="openai:o4-mini", run_id="o4", db=str(db),
                       data_dir=str(data_dir), limit=6, max_tokens=4096,
                       backend_options={"reasoning_effort": "low"})
    bodies = [r["body"] for r in api.requests]
    assert len(bodies) == len(items)                 # nothing refused: asked once each
    assert all("max_tokens" not in b and "temperature" not in b for b in bodies)
    assert {(b["max_completion_tokens"], b["reasoning_effort"]) for b in bodies} == {(4096, "low")}
    run = report["run"]
    assert (run["n_ok"], run["n_truncated"], run["n_infra_failed"]) == (len(items) - 1, 1, 0)
    rows = query(db, "SELECT status, input_tokens, output_tokens, reasoning_tokens, cost_usd "
                     "FROM responses")
    for status, tin, tout, thought, cost in rows:
        assert thought == (4096 if status == "truncated" else 40) and thought <= tout
        assert cost == pytest.approx((tin * 1.10 + tout * 4.40) / 1e6)   # reasoning as output
    assert run["reasoning_tokens"] == 40 * (len(items) - 1) + 4096
    assert run["cost_usd"] == pytest.approx(sum(r[4] for r in rows))
    from mathprobe.reports import card
    from mathprobe.store import open_store

    close_all()
    facts = card.build(open_store(str(db), read_only=True), "o4")
    assert facts["generation"] == {"max_completion_tokens": 4096, "reasoning_effort": "low"}
    assert facts["model"]["reasoning"] == "the table of reasoning models"
    assert facts["counts"]["truncated"] == 1 and facts["tokens"]["reasoning"] == run["reasoning_tokens"]
    close_all()


@pytest.mark.usefixtures("prefect_harness")
def test_an_anthropic_thinking_run_and_retry_failed_reasks_the_cut(api, data_dir, db):
    keyed = _wemath_keys(data_dir, 6)
    items, long_one = [it for it, _ in keyed], keyed[0][1]
    long_budget = {"left": 1}

    def reply(payload, prompt):
        if _item_key(payload) == long_one and long_budget["left"]:
            long_budget["left"] -= 1
            return f"<think>{' '.join(['deep'] * 5000)}</think><Answer>: <<A>>"
        return "<think>Quick look.</think><Answer>: <<A>>"

    api.reply = reply
    run = dict(benchmark="wemath", model="anthropic:claude-opus-4-5", run_id="opus",
               db=str(db), data_dir=str(data_dir), limit=6, max_tokens=4096,
               backend_options={"thinking_budget": 2048})
    report = eval_flow(**run)
    bodies = [r["body"] for r in api.requests]
    assert all(b["thinking"] == {"type": "enabled", "budget_tokens": 2048} and
               b["max_tokens"] == 4096 and "temperature" not in b for b in bodies)
    assert (report["run"]["n_ok"], report["run"]["n_truncated"]) == (len(items) - 1, 1)
    rows = dict(query(db, "SELECT status, reasoning FROM current_responses "
                          "WHERE status = 'truncated'"))
    assert rows["truncated"].startswith("deep deep")
    assert query(db, "SELECT DISTINCT reasoning FROM current_responses WHERE status = 'ok'") == \
        [("Quick look.",)]
    served = api.served
    report = eval_flow(**run, retry_failed=True)         # the same cap: only the cut is asked
    assert api.served - served == 1
    assert (report["run"]["n_ok"], report["run"]["n_truncated"]) == (len(items), 0)


def test_the_command_line_takes_each_kind_s_options_and_refuses_them_in_one_line(tmp_path,
                                                                               data_dir):
    import os

    from tests.cli.test_errors import run_driver

    env = dict(os.environ, OPENAI_API_KEY="sk-x", ANTHROPIC_API_KEY="sk-x")
    run = ["run", "--benchmark", "wemath", "--run-id", "r", "--db", str(tmp_path / "r.duckdb"),
           "--data-dir", str(data_dir)]
    cases = {
        "error: --temperature 0: openai:o4-mini takes no temperature but the default 1":
            run + ["--model", "openai:o4-mini", "--temperature", "0"],
        "error: --reasoning-effort low: openai:gpt-4o is not a reasoning model":
            run + ["--model", "openai:gpt-4o", "--reasoning-effort", "low"],
        "error: --thinking-budget 512: must be at least 1024":
            run + ["--model", "anthropic:claude-opus-4-5", "--thinking-budget", "512"],
        "error: --max-tokens 2048: must be above --thinking-budget 2048":
            run + ["--model", "anthropic:claude-opus-4-5", "--thinking-budget", "2048",
                   "--max-tokens", "2048"],
        "error: --thinking-budget: an option of anthropic:MODEL models, not of openai:o4-mini":
            run + ["--model", "openai:o4-mini", "--thinking-budget", "2048"],
    }
    results = run_driver(list(cases.values()), env)
    for (expected, _), got in zip(cases.items(), results):
        lines = [ln for ln in got["stderr"].splitlines() if ln.strip()]
        assert got["code"] == 2 and len(lines) == 1, got
        assert lines[0].startswith(expected), got["stderr"]
        assert not got["prefect"]                      # checked before Prefect is imported
    assert not (tmp_path / "r.duckdb").exists()
    from typer.testing import CliRunner

    from mathprobe.cli.main import app

    shown = re.sub(r"\s+", " ", CliRunner().invoke(app, ["run", "--help"],
                                                   env={"COLUMNS": "200"}).output)
    assert "--reasoning-effort" in shown and "--thinking-budget" in shown
    assert "(openai:MODEL models)" in shown and "(anthropic:MODEL models)" in shown


@pytest.mark.usefixtures("prefect_harness")
def test_the_html_report_folds_the_reasoning_beside_the_answer(api, data_dir, db, tmp_path):
    api.reply = lambda payload, prompt: "<think>Weighing A against B.</think><Answer>: <<A>>"
    eval_flow(benchmark="wemath", model="openai:my-r1#reasoning", run_id="html", db=str(db),
              data_dir=str(data_dir), limit=6)
    from mathprobe.reports import html
    from mathprobe.store import open_store

    close_all()
    out = tmp_path / "report.html"
    html.write(open_store(str(db), read_only=True), ["html"], out, data_dir=data_dir)
    close_all()
    page = out.read_text()
    data = json.loads(re.search(r'<script type="application/json" id="items-data">(.*?)</script>',
                                page, re.S).group(1))
    assert data["rows"] and all(r[6] == "<Answer>: <<A>>" and r[9] == "Weighing A against B."
                                for r in data["rows"])
    assert 'rd.className = "reasoning"' in page and "document.createElement(\"details\")" in page
