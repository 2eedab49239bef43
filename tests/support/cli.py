"""Running the `mathprobe` command in a subprocess, as a user does, against the session's
Prefect API (so it starts no server of its own) and a loopback model API."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

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


# Commands run one after the other by `main` in one process, each with its own settings added
# to the environment: their exit status, stderr, time, and whether Prefect was imported by then.
DRIVER = textwrap.dedent("""
    import contextlib, io, json, os, sys, time
    from mathprobe.cli.main import main
    out = []
    for env, args in json.loads(sys.argv[1]):
        saved = dict(os.environ)
        os.environ.update(env)
        err = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                main(args)
                code = 0
            except SystemExit as exc:
                code = exc.code
        os.environ.clear()
        os.environ.update(saved)
        out.append({"args": args, "code": code, "stderr": err.getvalue(),
                    "seconds": time.perf_counter() - started,
                    "prefect": any(m == "prefect" or m.startswith("prefect.")
                                   for m in sys.modules)})
    print(json.dumps(out))
""")


def run_driver(cases: list[list[str]], env: dict[str, str],
               case_envs: list[dict[str, str]] | None = None) -> list[dict]:
    """`mathprobe` commands (`cases`) run in one fresh process with `env`, each with its
    `case_envs` entry added; what each did (see DRIVER)."""
    pairs = [[extra, args] for extra, args in zip(case_envs or [{}] * len(cases), cases)]
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(pairs)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def each_one_error_line(cases: dict[str, object], results: list[dict]) -> None:
    """Each case (its expected fragment of the line -> what it ran) ended with exit status 2
    and one `error:` line holding the fragment, before Prefect was imported."""
    for (expected, case), got in zip(cases.items(), results):
        lines = [line for line in got["stderr"].splitlines() if line.strip()]
        assert got["code"] == 2, (case, got)
        assert len(lines) == 1 and lines[0].startswith("error: "), (case, got["stderr"])
        assert expected in lines[0], (expected, lines[0])
        assert not got["prefect"], (case, "imported Prefect before the error")
