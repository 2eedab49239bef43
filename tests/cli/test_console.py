"""What a command prints around its own output (issue 38 item 8): in a terminal, no Prefect log
lines around the progress bar (`--verbose` brings them back), every fact once (the `--limit`
line came twice, in a pipe too), and help text for every option, true of the command.

The terminal is a real pseudo-terminal (pty) the `mathprobe` command writes to, as a user's."""
from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest
import typer

from mathprobe.cli.main import app
from tests.conftest import REPO
from tests.support.cli import cli_env

PREFECT_LINE = re.compile(r"\d\d:\d\d:\d\d\.\d{3} \| (DEBUG|INFO|WARNING|ERROR|CRITICAL)")
LIMIT_NOTE = "--limit 30: 30 of 1740 items"


def in_terminal(args: list[str], env: dict[str, str], timeout: float = 180) -> tuple[int, str]:
    """(exit status, what it wrote to the terminal, escape sequences removed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mathprobe", *args], cwd=REPO, env=env,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    out, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:                       # the terminal's other end closed
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        proc.kill()
        os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode(errors="replace"))
    return code, text.replace("\r\n", "\n")


def test_a_run_in_a_terminal_shows_no_prefect_lines_unless_verbose(tmp_path, data_dir,
                                                                    prefect_harness):
    env = cli_env(MATHPROBE_NO_WARM="1", COLUMNS="160", MATHPROBE_DATA_DIR=str(data_dir))
    env.pop("NO_COLOR", None)
    args = ["run", "--benchmark", "wemath", "--model", "baseline:random", "--db",
            str(tmp_path / "t.duckdb"), "--limit", "30"]
    code, text = in_terminal(args + ["--run-id", "quiet"], env)
    assert code == 0, text[-3000:]
    assert not PREFECT_LINE.search(text), text[-3000:]          # before: about 30 of them
    assert text.count(LIMIT_NOTE) == 1, text[-3000:]
    assert "run quiet  wemath  baseline:random" in text        # the report, as ever
    code, text = in_terminal(args + ["--run-id", "loud", "--verbose"], env)
    assert code == 0, text[-3000:]
    assert len(PREFECT_LINE.findall(text)) >= 5, text[-3000:]   # Prefect's own account
    assert text.count(LIMIT_NOTE) == 1, text[-3000:]            # said once all the same


def test_in_a_pipe_each_note_is_printed_once(tmp_path, data_dir, prefect_harness):
    done = subprocess.run([sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath",
                           "--model", "baseline:random", "--run-id", "piped", "--db",
                           str(tmp_path / "p.duckdb"), "--data-dir", str(data_dir), "--limit",
                           "30"], cwd=REPO, env=cli_env(MATHPROBE_NO_WARM="1"),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count(LIMIT_NOTE) == 1, done.stderr[-3000:]   # before: twice
    assert PREFECT_LINE.search(done.stderr)                  # a job's log keeps Prefect's lines


def _options():
    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])
        for param in command.params:
            yield " ".join(path), param
    return list(walk(typer.main.get_command(app), ["mathprobe"]))


def test_every_option_of_every_command_says_what_it_is():
    missing = [f"{path} {'/'.join(p.opts)}" for path, p in _options()
               if not (getattr(p, "help", None) or "").strip()]
    assert missing == []               # before: report --grader, run --temperature, and 12 more


@pytest.mark.parametrize("command", ["report", "sql", "errors agreement",
                                     "errors export-sheet"])
def test_commands_that_read_a_store_do_not_say_they_create_it(command):
    (db,) = [p for path, p in _options() if path == f"mathprobe {command}" and p.name == "db"]
    assert "created if absent" not in db.help and "must exist" in db.help
