"""How to name a process to its user: by the command it runs for.

A command handed to the warm runner (mathprobe/warm/) runs in a copy the runner forks, so the
process that holds a store's write lock is the copy, whose pid the user never saw: DuckDB's
"open for writing in another process (PID 5678)" named a `python -m mathprobe.warm.runner`
process, not the `mathprobe run ...` the user typed in another terminal (issue 33 item 8). The
runner records each copy it forks here (`record`): the client's pid (the user's `mathprobe`
process, from the socket's peer credentials) and the command's arguments; `name` turns a pid
into what the user knows, and says whether the command that copy serves is gone (killed: the
copy is then stopping, as Ctrl-C stops a run). The records live in the runner's private
folder (0700, this user's), one small file per running copy, removed when it ends; a pid reused
by another process after a crash is told apart by its start time.
"""
from __future__ import annotations

import json
import os
import shlex
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mathprobe.processes import start_time

STOPPING_WAIT_S = 20.0      # how long a command waits for a killed command's copy to stop


def folder() -> Path:
    """The warm runner's private folder (its socket is there too)."""
    return Path(tempfile.gettempdir()) / f"mathprobe-{os.getuid()}"


def record(pid: int, client: int, argv: list[str]) -> None:
    """Copy `pid` runs `mathprobe ARGV` for the user's process `client`."""
    path = folder() / f"copy-{pid}.json"
    path.write_text(json.dumps({"pid": pid, "born": start_time(pid), "client": client,
                                "client_born": start_time(client), "argv": argv}))


def forget(pid: int) -> None:
    (folder() / f"copy-{pid}.json").unlink(missing_ok=True)


@dataclass(frozen=True)
class Served:
    """What a warm runner's copy runs: `mathprobe ARGV` for process `client`."""
    pid: int
    client: int
    argv: list[str]
    client_alive: bool

    @property
    def command(self) -> str:
        return "mathprobe " + " ".join(shlex.quote(a) for a in self.argv)


def served(pid: int) -> Served | None:
    """The command copy `pid` runs, if it is a live copy of the warm runner."""
    try:
        facts = json.loads((folder() / f"copy-{pid}.json").read_text())
    except (OSError, ValueError):
        return None
    if facts.get("born") is None or facts["born"] != start_time(pid):
        return None                              # that copy ended; the pid is another's now
    # a killed client its parent has not reaped yet (a zombie) keeps its start time: it is dead
    alive = facts.get("client_born") is not None and facts["client_born"] == start_time(
        facts["client"]) and not _zombie(int(facts["client"]))
    return Served(pid, int(facts["client"]), list(facts["argv"]), alive)


def name(pid: int) -> str:
    """`pid` as its user knows it: ' (PID N)', or for a warm copy ': `mathprobe ...` (PID of
    the user's process, and the copy's)', to follow 'another process'."""
    copy = served(pid)
    if copy is None:
        return f" (PID {pid})"
    if not copy.client_alive:
        return (f": `{copy.command}`, whose process (PID {copy.client}) was killed; the warm "
                f"runner's copy that ran it (PID {pid}) is still stopping")
    return f": `{copy.command}` (PID {copy.client}; the warm runner runs it as PID {pid})"


def wait_if_stopping(pid: int, timeout: float = STOPPING_WAIT_S) -> bool:
    """If `pid` is a warm copy whose command was killed (it stops as Ctrl-C stops a run: its
    answers stored, the run marked interrupted, in about a second), wait for it to end; whether
    it ended. Any other process: False at once."""
    copy = served(pid)
    if copy is None or copy.client_alive:
        return False
    born = start_time(pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if born is None or start_time(pid) != born or _zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
