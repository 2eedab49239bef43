"""The exit status tells how a run ended (0 completed, 3 incomplete, 4 stopped by --max-cost),
and every run and probe ends by printing its first failure reasons with counts."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from mathprobe.benchmarks import wemath
from tests.support.cli import cli_env, mathprobe
from tests.support.fake_api import FakeAPI

pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture
def api():
    server = FakeAPI().start()
    yield server
    server.stop()


def invoke(api, *args: str, **env: str):
    """The command in a subprocess (its real exit status); output = stdout + stderr."""
    done = mathprobe(*args, env=cli_env(api, COLUMNS="200", MATHPROBE_RETRY_BASE_WAIT_S="0.01",
                                        MATHPROBE_RETRY_MAX_WAIT_S="0.05",
                                        MATHPROBE_RETRY_MAX_ATTEMPTS="2", **env))
    return SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr)


def test_incomplete_run_exits_3_and_prints_the_failure_reasons(api, db, data_dir):
    items = wemath.select(wemath.load(data_dir).items, 12)
    for item in items[:2]:
        api.always[f"Question: {item.question}\nOption: {item.payload['option']}"] = "503"
    result = invoke(api, "run", "--benchmark", "wemath", "--model", "openai:m", "--run-id", "inc",
                    "--db", str(db), "--data-dir", str(data_dir), "--limit", "12")
    failed = sum(1 for r in api.requests if r["fault"] == "503") // 2     # 2 attempts each
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert f"{failed} call(s) failed (infra_failed)" in text and "--retry-failed" in text
    assert f"{failed} x HTTP 503: Error code: 503 - fault 503 (infra_failed)" in text


def test_budget_stop_exits_4(api, db, data_dir, tmp_path):
    prices = tmp_path / "prices.toml"
    prices.write_text('[openai]\n"pricey" = { input = 1000.0, output = 2000.0 }\n')
    result = invoke(api, "run", "--benchmark", "wemath", "--model", "openai:pricey", "--run-id",
                    "cap", "--db", str(db), "--data-dir", str(data_dir), "--limit", "12",
                    "--concurrency", "1", "--max-cost", "0.2", MATHPROBE_PRICES=str(prices))
    assert result.exit_code == 4, result.output
    assert "--max-cost $0.2000 reached" in " ".join(result.output.split())


def test_a_probe_whose_calls_all_fail_exits_3_with_the_reason(api, db, data_dir):
    api.always[""] = "401"                         # every request: not retryable
    result = invoke(api, "classify", "--model", "openai:m", "--db", str(db), "--data-dir",
                    str(data_dir), "--limit", "8")
    assert result.exit_code == 3, result.output
    text = " ".join(result.output.split())
    assert "(no answers)" in text
    assert "classify: 8 of 8 call(s) failed (infra_failed)" in text
    assert "8 x HTTP 401: Error code: 401 - fault 401 (infra_failed)" in text


def test_max_cost_on_a_model_without_a_price_asks_nothing(api, db, data_dir, tmp_path):
    """`--max-cost` is kept by pricing each answer: on a model the price table lacks it could
    never be reached (60 requests were sent under --max-cost 0.0001, exit 0). Now the run and
    the error labeller say so in one line and ask nothing (exit 2); a price given through
    MATHPROBE_PRICES is used, and the cap then stops the run (exit 4)."""
    run = ["run", "--benchmark", "wemath", "--model", "openai:unpriced", "--run-id", "cap",
           "--db", str(db), "--data-dir", str(data_dir), "--limit", "12", "--concurrency", "1"]
    result = invoke(api, *run, "--max-cost", "0.0001")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: --max-cost 0.0001: --model "
                                                   "openai:unpriced has no price"), lines
    assert "MATHPROBE_PRICES" in lines[0] and api.served == 0

    prices = tmp_path / "prices.toml"
    prices.write_text('[openai]\n"unpriced" = { input = 1000.0, output = 2000.0 }\n')
    result = invoke(api, *run, "--max-cost", "0.1", MATHPROBE_PRICES=str(prices))
    assert result.exit_code == 4, result.output            # the user's price: the cap holds
    assert 0 < api.served < 12
    asked = api.served

    labelled = invoke(api, "errors", "cap", "--judge", "openai:unpriced", "--db", str(db),
                      "--data-dir", str(data_dir), "--max-cost", "1")
    lines = [line for line in labelled.output.splitlines() if line.strip()]
    assert labelled.exit_code == 2, labelled.output
    assert len(lines) == 1 and lines[0].startswith("error: --max-cost 1: --judge "
                                                   "openai:unpriced has no price"), lines
    assert api.served == asked                              # the labeller asked nothing


def test_max_cost_stops_a_run_whose_answers_carry_no_token_counts(api, db, data_dir, tmp_path):
    """A priced model behind a server that reports no usage: each answer's cost is unknown,
    so the cap could not be kept; the run stops asking at the first such answer and says why
    (exit 4) instead of spending without a count."""
    prices = tmp_path / "prices.toml"
    prices.write_text('[openai]\n"m" = { input = 0.1, output = 0.1 }\n')
    api.usage = False
    result = invoke(api, "run", "--benchmark", "wemath", "--model", "openai:m", "--run-id",
                    "blind", "--db", str(db), "--data-dir", str(data_dir), "--limit", "12",
                    "--concurrency", "1", "--max-cost", "5", MATHPROBE_PRICES=str(prices))
    assert result.exit_code == 4, result.output
    assert "came without token counts, so the cost is unknown" in " ".join(result.output.split())
    assert api.served < 12
