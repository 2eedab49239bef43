"""Running the `mathprobe` command in a subprocess, as a user does, against the session's
Prefect API (so it starts no server of its own) and a loopback model API."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO


def cli_env(api=None, **extra: str) -> dict[str, str]:
    from prefect.settings import PREFECT_API_URL

    env = dict(os.environ, PREFECT_API_URL=PREFECT_API_URL.value(), PYTHONUNBUFFERED="1")
    if api is not None:
        env.update(OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-cli",
                   ANTHROPIC_BASE_URL=api.anthropic_url, ANTHROPIC_API_KEY="sk-test-cli")
    env.update(extra)
    return env


def mathprobe(*args: str, env: dict[str, str], timeout: float = 300,
              preexec_fn=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mathprobe", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout,
                          preexec_fn=preexec_fn)


def invoke(*args: str):
    """A `mathprobe` command that must succeed, run in this process (typer's runner: no Python
    and Prefect import per command); the store is closed after it, as a new process finds it."""
    from typer.testing import CliRunner

    from mathprobe.cli.main import app
    from mathprobe.store import close_all

    result = CliRunner().invoke(app, list(args))
    close_all()
    assert result.exit_code == 0, result.output
    return result


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]
