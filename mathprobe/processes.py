"""Processes that clean up after themselves, and telling which process holds a port.

A command that starts a helper process (Prefect's temporary server) must not leave it behind
when it dies, even by kill -9, which no handler of its own sees. `outlived_by_none(pid)` starts
a watchdog: a tiny process in a session of its own that blocks on a pipe whose only writing
end this process holds. The kernel closes that end when this process ends, however it ends;
the watchdog then stops the helper (SIGTERM, SIGKILL after a grace period) unless it is gone
already, telling it apart from a later process given the same pid by its start time. (Unlike
PR_SET_PDEATHSIG, which fires when the *thread* that started the child ends, this survives
the helper being started from a short-lived thread.)

`listening_pids(port)` names the processes listening on a loopback TCP port (Linux /proc), so
`mathprobe server start` can tell its own server from another program answering on the port.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# The watchdog: argv = pid, its start time; stdin = the pipe. Standard library only (`-S`).
_WATCHDOG = r"""
import os, signal, sys, time
pid, born = int(sys.argv[1]), sys.argv[2]
def same():
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19] == born
    except (OSError, IndexError):
        return False
try:
    while os.read(0, 64):
        pass
except OSError:
    pass
for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 0.0)):
    if not same():
        break
    try:
        os.kill(pid, sig)
    except OSError:
        break
    end = time.monotonic() + grace
    while same() and time.monotonic() < end:
        time.sleep(0.05)
"""

_held: list[int] = []         # the writing ends: open for this process's whole life


def start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), None if it is gone (or no /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def started_at(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch, to about a second), None if it is
    gone (or no /proc): tells a process from a later one given the same pid."""
    born = start_time(pid)
    if born is None:
        return None
    try:
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return None
    return boot + int(born) / os.sysconf("SC_CLK_TCK")


def outlived_by_none(pid: int) -> bool:
    """Stop process `pid` when this process ends, whatever ends it; False where it cannot be
    arranged (no /proc)."""
    born = start_time(pid)
    if born is None:
        return False
    read_end, write_end = os.pipe()            # not inherited by this process's other children
    try:
        subprocess.Popen([sys.executable, "-S", "-c", _WATCHDOG, str(pid), born],
                         stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        os.close(write_end)
        return False
    finally:
        os.close(read_end)
    _held.append(write_end)
    return True


def process_group(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


def listening_pids(port: int, among: list[int] | None = None) -> set[int] | None:
    """The pids (of `among`, default every process) holding a TCP socket listening on `port`;
    None where /proc cannot tell."""
    inodes = set()
    try:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{fields[9]}]")
    except (OSError, StopIteration, IndexError, ValueError):
        return None
    pids = among if among is not None else [int(p) for p in os.listdir("/proc") if p.isdigit()]
    found = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                    found.add(pid)
                    break
            except OSError:
                continue
    return found


def group_members(pgid: int) -> list[int]:
    """The processes of process group `pgid`."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and process_group(int(p)) == pgid]
