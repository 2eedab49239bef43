"""The `mathprobe` command: handed to the warm runner when one serves, else run in this process.

The warm runner (mathprobe/warm/control.py, started by `mathprobe server start`) has already
imported Prefect, the flows and the model SDKs, which costs a command about 2 s before its first
request. This module is the whole of what the command imports on that path: the standard library
and mathprobe.warm.control's record. It passes the runner this process's stdin, stdout and
stderr (SCM_RIGHTS over the runner's Unix socket), its arguments, working directory and
environment; the runner's forked copy writes straight to the user's terminal, and this process
waits for its exit status, passing on Ctrl-C (SIGINT), SIGTERM, SIGHUP and Ctrl-Z / fg. Whenever
the runner is absent or declines (other code, other Prefect settings, the server down; the
runner's log says which), or MATHPROBE_NO_WARM=1, the command runs here, exactly as before.
`mathprobe server ...` always runs here: it starts and stops the runner itself.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time

from mathprobe.warm import control as warm


def main() -> None:
    args = sys.argv[1:]
    code = None if _runs_here(args) else hand_over(args)
    if code is None:
        from mathprobe.cli.main import main as cli_main

        cli_main(args)
    sys.exit(code)


def _runs_here(args: list[str]) -> bool:
    command = next((a for a in args if not a.startswith("-")), None)
    return bool(os.environ.get(warm.NO_WARM)) or command in (None, "server")


def hand_over(args: list[str]) -> int | None:
    """The exit status of `args` run by the warm runner, or None when it did not take them
    (nothing has been run then: the caller runs them itself)."""
    conn = warm.connect()
    if conn is None:
        return None
    request = {"protocol": warm.PROTOCOL, "argv": args, "cwd": os.getcwd(),
               "env": dict(os.environ), "umask": _umask(), **warm.identity()}
    try:
        payload = json.dumps(request).encode()
        socket.send_fds(conn, [len(payload).to_bytes(4, "big") + payload], [0, 1, 2])
        replies = conn.makefile("rb")
        reply = replies.readline().decode().split()
    except (OSError, ValueError):               # e.g. a closed stdin: no fd to pass
        conn.close()
        return None
    if reply[:1] != ["ok"]:
        conn.close()
        return None
    pid = int(reply[1])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCONT):
        signal.signal(sig, lambda signum, _frame: _forward(pid, signum))
    signal.signal(signal.SIGTSTP, lambda _signum, _frame: _suspend(pid))
    try:
        line = replies.readline().decode().split()   # the runner's "exit N" when it ends
    except OSError:
        line = []
    finally:
        conn.close()
    if line[:1] == ["exit"]:
        return int(line[1])
    while warm.running(pid):                    # the runner went away; the command may not have
        time.sleep(0.1)
    sys.stderr.write(f"error: the warm runner stopped while it ran this command (pid {pid}); "
                     "its exit status is unknown. Run the same command again to resume.\n")
    return 130


def _suspend(pid: int) -> None:
    """Ctrl-Z: stop the command's copy, then this process as the shell expects (SIGCONT, from
    `fg` or `bg`, is passed on)."""
    _forward(pid, signal.SIGSTOP)
    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTSTP)
    signal.signal(signal.SIGTSTP, lambda _signum, _frame: _suspend(pid))


def _forward(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == "__main__":
    main()
