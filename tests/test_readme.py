"""Every command README.md prints works when pasted (issue 23 item 3, issue 26 item 7).

The README's ```sh blocks are run in order, each command as written, in an empty folder, as a
user who did `source .venv/bin/activate` would run them: the test's virtualenv's bin first on
PATH, the benchmark data in MATHPROBE_DATA_DIR, a Prefect home and mathprobe state of their own,
and the model APIs on a loopback server (tests/support/fake_api.py) through OPENAI_BASE_URL and
ANTHROPIC_BASE_URL. The commands themselves stay what a user types (`export OPENAI_API_KEY=...`
included: the loopback server takes any key). An `export` carries over to later commands, as in
one shell.

Conventions the README's source follows (and this test reads):
- `<!-- not run: REASON -->` on the line before a block: the block is not run (it installs, runs
  the test suite, or starts long-lived servers on fixed ports); the reason is required. The
  README's `mathprobe server start` is one: the commands use the session's Prefect server
  (PREFECT_API_URL, which mathprobe uses as it is), as a user's own server would be.
- a ```text block after a ```sh block: lines its commands print; each must appear in their
  output (whitespace collapsed).
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
# The README's runnable commands; fewer means a block was dropped or marked not run by mistake.
MIN_COMMANDS = 15
COMMAND_TIMEOUT_S = 150
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->")


@dataclass
class Block:
    line: int                       # the fence's line number in README.md (1-based)
    commands: list[str]
    not_run: str | None             # the reason, for a block marked not run
    expected: list[str] = field(default_factory=list)


def join_continuations(lines: list[str]) -> list[str]:
    """The block's commands: comment-only and blank lines dropped, `\\`-continued lines joined."""
    commands, current = [], ""
    for raw in lines:
        line = raw.rstrip()
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        commands.append(current + line)
        current = ""
    assert not current, f"a command ends in a line continuation: {current!r}"
    return commands


def readme_blocks(text: str) -> list[Block]:
    """The ```sh / ```bash blocks of the README, with the ```text blocks that follow each."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```"):
            lang = fence[3:].strip()
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            body = lines[i + 1:end]
            if lang in ("sh", "bash"):
                mark = NOT_RUN.search(lines[i - 1]) if i else None
                blocks.append(Block(i + 1, join_continuations(body),
                                    mark.group(1) if mark else None))
            elif lang == "text" and blocks:
                blocks[-1].expected += [ln for ln in body if ln.strip()]
            i = end + 1
        else:
            i += 1
    return blocks


def squash(text: str) -> str:
    return " ".join(text.split())


def test_the_readme_conventions_are_read_as_meant():
    blocks = readme_blocks(README.read_text())
    assert blocks, "README.md has no ```sh block"
    for block in blocks:
        assert block.commands, f"README.md:{block.line}: an empty ```sh block"
        if block.not_run is not None:
            assert block.not_run, f"README.md:{block.line}: `not run` needs its reason"
            assert not block.expected, (f"README.md:{block.line}: a block that is not run cannot "
                                        "say what it prints")
    assert sum(len(b.commands) for b in blocks if b.not_run is None) >= MIN_COMMANDS


def test_every_path_the_readme_names_exists():
    """The README points at docs/ pages and repository folders: each must be there."""
    text = README.read_text()
    named = set(re.findall(r"\]\(([^)#\s]+)\)", text))                  # Markdown links
    named |= {p for p in re.findall(r"`((?:docs|tests|deploy|tasks|flows|sql)/[^`\s]*)`", text)
              if "<" not in p}
    assert named
    missing = sorted(p for p in named if not p.startswith("http") and not (REPO / p).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


@pytest.fixture
def user_env(tmp_path, data_dir, prefect_harness):
    """The environment of a user who activated the virtualenv, with the model APIs on loopback."""
    import os

    from prefect.settings import PREFECT_API_URL

    from tests.support.fake_api import FakeAPI

    api = FakeAPI().start()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PREFECT_", "MATHPROBE_", "OPENAI_", "ANTHROPIC_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        MATHPROBE_DATA_DIR=str(data_dir),
        MATHPROBE_STATE_DIR=str(tmp_path / "state"),
        PREFECT_HOME=str(tmp_path / "prefect-home"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        # the session's Prefect server (tests/conftest.py), in place of `mathprobe server start`
        PREFECT_API_URL=PREFECT_API_URL.value(),
        OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-readme",
        ANTHROPIC_BASE_URL=api.anthropic_url, ANTHROPIC_API_KEY="sk-test-readme",
        PYTHONUNBUFFERED="1", COLUMNS="120")
    try:
        yield env
    finally:
        api.stop()


def run_in_shell(command: str, cwd: Path, env: dict[str, str], state: Path):
    """One command in bash, with the exports of the commands before it (as in one shell)."""
    script = (f'[ -f "{state}" ] && . "{state}"\n{command}\nrc=$?\n'
              f'export -p > "{state}"\nexit $rc\n')
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=COMMAND_TIMEOUT_S)


@pytest.mark.timeout(600)
def test_every_readme_command_runs_as_written(tmp_path, user_env):
    work = tmp_path / "work"
    work.mkdir()
    state = tmp_path / "shell-exports.sh"
    ran = 0
    for block in readme_blocks(README.read_text()):
        if block.not_run is not None:
            continue
        printed = []
        for command in block.commands:
            started = time.monotonic()
            done = run_in_shell(command, work, user_env, state)
            print(f"{time.monotonic() - started:6.1f} s  {command[:90]}")
            assert done.returncode == 0, (
                f"README.md:{block.line}: `{command}` exited {done.returncode}:\n"
                f"{done.stdout[-4000:]}")
            printed.append(done.stdout)
            ran += 1
        output = squash("\n".join(printed))
        for line in block.expected:
            assert squash(line) in output, (
                f"README.md:{block.line}: the README says it prints\n  {line.strip()}\n"
                f"but it printed:\n{printed[-1][-4000:]}")
    assert ran >= MIN_COMMANDS
    # what the commands say they made is there
    assert (work / "report.html").stat().st_size > 10_000
    assert (work / "figures.csv").read_text().count("\n") > 10
    assert (work / "concepts.csv").read_text().startswith("run_id,")
    assert (work / "submission" / "gpt4o-mini.json").is_file()


def test_the_install_size_is_the_scripts_and_under_500_mb():
    """The README's install figures are perf/install_size.py's last measurement (it writes
    them between the README's install-size marks and into perf/install_size.json), not numbers
    written by hand (the README said 554 MB where the core measured 919 MB, issue 38); the
    core is under 500 MB."""
    import json

    from perf.install_size import MARKS, RECORD, TARGET_MB, readme_sentence

    record = json.loads(RECORD.read_text())
    shown = MARKS.search(README.read_text())
    assert shown, "README.md lost its <!-- install-size --> marks"
    assert shown.group(2) == readme_sentence(record)
    assert record["core_mb"] < TARGET_MB and record["command"] == "python perf/install_size.py"
