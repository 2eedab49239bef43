"""Every MATHPROBE_* environment setting is declared once (mathprobe/settings.py) and checked
like its flag: a bad value is one `error:` line and exit status 2 before anything starts, on the
command line and at the start of a flow run from a deployment (no command line ran there)."""
from __future__ import annotations

import re

import pytest

from mathprobe import settings
from mathprobe.errors import MathprobeError
from tests.conftest import REPO
from tests.support.cli import each_one_error_line, run_driver

NAME = re.compile(r"MATHPROBE_[A-Z0-9_]*[A-Z0-9]_?")


def test_every_setting_the_code_reads_is_declared():
    """A MATHPROBE_* name anywhere in the library, flows or tasks must have a declaration, so a
    new setting cannot skip the checks (a name ending in '_' is a family's prefix)."""
    found = {}
    for folder in ("mathprobe", "flows", "tasks"):
        for path in (REPO / folder).rglob("*.py"):
            if (REPO / folder / path.relative_to(REPO / folder).parts[0]).is_symlink():
                continue
            for name in NAME.findall(path.read_text()):
                found.setdefault(name, str(path.relative_to(REPO)))
    assert len(found) >= 15, found
    undeclared = {n: where for n, where in found.items()
                  if settings.declared(n) is None
                  and not (n.endswith("_") and any(s.name.startswith(n)
                                                   for s in settings.SETTINGS))}
    assert undeclared == {}


def test_a_bad_setting_is_one_error_line_before_anything(tmp_path, data_dir):
    """Each bad value, on a run that would otherwise go ahead: exit 2, one line naming the
    variable and what it accepts, no Prefect imported, no store made. (-5 and nan seconds were
    taken, `abc` attempts failed inside the flow with a traceback, 0 attempts and 0 requests in
    flight were accepted.)"""
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    bad_prices = tmp_path / "prices.toml"
    bad_prices.write_text('[openai]\n"m" = { input = "cheap", output = 1.0 }\n')
    db = tmp_path / "new.duckdb"
    run = ["run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id", "r",
           "--db", str(db), "--data-dir", str(data_dir), "--limit", "3"]
    cases = {
        "MATHPROBE_REQUEST_TIMEOUT_S=-5: must be above 0": {"MATHPROBE_REQUEST_TIMEOUT_S": "-5"},
        "MATHPROBE_REQUEST_TIMEOUT_S=nan: must be a finite number":
            {"MATHPROBE_REQUEST_TIMEOUT_S": "nan"},
        "MATHPROBE_RETRY_MAX_ATTEMPTS=abc: must be a whole number":
            {"MATHPROBE_RETRY_MAX_ATTEMPTS": "abc"},
        "MATHPROBE_RETRY_MAX_ATTEMPTS=0: must be at least 1": {"MATHPROBE_RETRY_MAX_ATTEMPTS": "0"},
        "MATHPROBE_MAX_CONCURRENCY_OPENAI=0: must be at least 1":
            {"MATHPROBE_MAX_CONCURRENCY_OPENAI": "0"},
        "MATHPROBE_MAX_CONCURRENCY_OPENIA: no backend kind 'openia'":
            {"MATHPROBE_MAX_CONCURRENCY_OPENIA": "8"},
        "MATHPROBE_RETRY_MAX_ATEMPTS: not a mathprobe setting; did you mean "
        "MATHPROBE_RETRY_MAX_ATTEMPTS?": {"MATHPROBE_RETRY_MAX_ATEMPTS": "3"},
        "MATHPROBE_RETRY_BASE_WAIT_S=-1: must be at least 0": {"MATHPROBE_RETRY_BASE_WAIT_S": "-1"},
        "MATHPROBE_RETRY_MAX_WAIT_S=inf: must be a finite number":
            {"MATHPROBE_RETRY_MAX_WAIT_S": "inf"},
        "MATHPROBE_RETRY_MAX_TOTAL_S=0: must be above 0": {"MATHPROBE_RETRY_MAX_TOTAL_S": "0"},
        "MATHPROBE_BATCH_MAX_REQUESTS=0: must be at least 1": {"MATHPROBE_BATCH_MAX_REQUESTS": "0"},
        "MATHPROBE_BATCH_POLL_S=soon: must be a number": {"MATHPROBE_BATCH_POLL_S": "soon"},
        "MATHPROBE_TRITON_URL=localhost: must be HOST:PORT": {"MATHPROBE_TRITON_URL": "localhost"},
        "MATHPROBE_TRITON_URL=h:99999: must be at most 65535": {"MATHPROBE_TRITON_URL": "h:99999"},
        "MATHPROBE_PRICES=/no/such.toml: no such file": {"MATHPROBE_PRICES": "/no/such.toml"},
        f"{bad_prices}: [openai] 'm': field 'input' must be a number":
            {"MATHPROBE_PRICES": str(bad_prices)},
        "MATHPROBE_REASONING_MODELS=/no/such.toml: no such file":
            {"MATHPROBE_REASONING_MODELS": "/no/such.toml"},
        f"MATHPROBE_SPOOL_DIR={a_file}: is a file, not a folder":
            {"MATHPROBE_SPOOL_DIR": str(a_file)},
        f"MATHPROBE_DB={tmp_path}: is a directory": {"MATHPROBE_DB": str(tmp_path)},
    }
    env = {k: v for k, v in __import__("os").environ.items()
           if not k.startswith(("OPENAI", "ANTHROPIC", "PREFECT_API"))}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"),
               MATHPROBE_STATE_DIR=str(tmp_path / "state"), MATHPROBE_NO_WARM="1")
    each_one_error_line(cases, run_driver([run] * len(cases), env, list(cases.values())))
    assert not db.exists()


def test_a_flow_started_without_the_command_line_checks_them_too(monkeypatch, data_dir, tmp_path):
    """A deployment's worker calls the flow itself: its preflight refuses the same values, and
    code that reads a value (the retry policy) never takes one unchecked."""
    from mathprobe.backends.retry import RetryPolicy
    from mathprobe.runs import preflight

    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "abc")
    with pytest.raises(MathprobeError, match="MATHPROBE_RETRY_MAX_ATTEMPTS=abc: must be a whole"):
        preflight.check_eval(benchmark="wemath", model="baseline:random", setting=None,
                             run_id="r", db=tmp_path / "x.duckdb", data_dir=data_dir)
    with pytest.raises(MathprobeError, match="MATHPROBE_RETRY_MAX_ATTEMPTS=abc"):
        RetryPolicy.from_env()
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "3")
    monkeypatch.setenv("MATHPROBE_REQUEST_TIMEOUT_S", "2.5")
    assert RetryPolicy.from_env().max_attempts == 3 and RetryPolicy.from_env().timeout_s == 2.5
    assert not (tmp_path / "x.duckdb").exists()


def test_every_setting_is_documented():
    """The table in docs/command-line.md names each declared variable."""
    text = (REPO / "docs" / "command-line.md").read_text()
    missing = [s.name for s in settings.SETTINGS
               if (s.name + ("<KIND>" if s.name.endswith("_") else "")) not in text]
    assert missing == []
