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
