"""The warm runner's process (`python -m mathprobe.warm.runner --api-url URL`; see
mathprobe/warm/control.py for why and control.start for how it is started).

It sets PREFECT_API_URL, imports what commands need, then listens on a Unix socket in a private
folder. Per command it checks that it may serve it (`_declines`), forks, and the copy becomes
the command (`_become`): the command's stdin/stdout/stderr replace its own, its environment,
working directory, umask and arguments are taken, and `mathprobe.cli.main.main` runs as in the
command's own process. The runner itself stays single-threaded (a fork copies one thread only),
reaps its copies (SIGCHLD wakes its select loop) and sends each client `exit N`; each copy is
recorded with the user's command it runs (mathprobe.process_names: an error about a file the
copy holds names that command). A client that goes away (killed) gets its copy interrupted as
Ctrl-C would. SIGTERM (`mathprobe server stop`) interrupts running copies the same way, waits
for them, and exits. A server a command started (its record's `idle_s`) is stopped here once no
command has used it that long (mathprobe/warm/server.py), and the runner leaves with it.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time

from mathprobe import process_names
from mathprobe.warm import control as warm
from mathprobe.warm.warm_up import warm_up

_HEALTH_EVERY_S = 5.0


def run(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog=f"python -m {warm.RUNNER}")
    ap.add_argument("--api-url", required=True)
    api_url = ap.parse_args(argv).api_url
    started = time.monotonic()
    code = warm.fingerprint()                      # before importing: an edit meanwhile shows
    os.environ["PREFECT_API_URL"] = api_url        # read by Prefect's settings when imported
    warm_up()
    print(f"warm runner {os.getpid()}: ready in {time.monotonic() - started:.1f} s for "
          f"{api_url}", flush=True)
    request = Runner(api_url, code, time.monotonic() - started).serve()
    if request is not None:                        # this is a forked copy: be the command
        _become(*request)
    print("warm runner stopped", flush=True)
    _exit(0)                                       # as a command's copy ends, for the same reason


def _prefect_settings(env: dict) -> dict:
    """The PREFECT_* variables that decide what Prefect's import read, as the command would
    set them before importing it (mathprobe/cli/main.py's defaults); the server URL aside."""
    out = {k: v for k, v in env.items() if k.startswith("PREFECT_") and k != "PREFECT_API_URL"}
    out.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    return out


class Runner:
    def __init__(self, api_url: str, code: str, ready_s: float):
        self.api_url, self.code, self.ready_s = api_url, code, ready_s
        self.settings = _prefect_settings(dict(os.environ))
        self.children: dict[int, socket.socket] = {}
        self.listener: socket.socket | None = None      # while serving: the commands' socket
        self.served, self.stopping, self.successor = 0, False, False
        self.checked = time.monotonic()
        self.unused_since: float | None = None     # when the server was last seen unused
        folder = process_names.folder()
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.stat().st_uid != os.getuid():    # made by someone else: never ours to use
            raise SystemExit(f"{folder} belongs to another user; the warm runner will not start")
        os.chmod(folder, 0o700)                    # only this user may hand it commands
        key = hashlib.sha256(str(warm.state_dir().resolve()).encode()).hexdigest()[:16]
        self.path = str(folder / f"warm-{key}.sock")

    # -- the loop -------------------------------------------------------------------------
    def serve(self) -> tuple | None:
        """Serve until stopped (None), or return a command in a forked copy."""
        if os.path.exists(self.path):
            os.unlink(self.path)                   # a runner killed before it could clean up
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        record = {"pid": os.getpid(), "socket": self.path, "api_url": self.api_url}
        tmp = warm.state_dir() / f"{warm.RECORD}.{os.getpid()}"
        tmp.write_text(json.dumps(record))
        tmp.replace(warm.state_dir() / warm.RECORD)
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, "listen")
        self.sel.register(self.wake_r, selectors.EVENT_READ, "wake")
        while not (self.listener is None and not self.children):
            if self.stopping and self.listener is not None:     # SIGTERM: `server stop`
                self._stop()
                continue                           # done, unless commands still run
            for key, _ in self.sel.select(timeout=_HEALTH_EVERY_S):
                if key.data == "listen":
                    request = self._accept()
                    if request is not None:
                        return request
                elif key.data == "wake":
                    os.read(self.wake_r, 4096)
                else:                              # a client closed its end: it went away
                    self._client_gone(key.data)
            self._reap()
            if self.listener is not None and time.monotonic() - self.checked > _HEALTH_EVERY_S:
                self.checked = time.monotonic()
                if _server_gone(self.api_url) and not self.children:
                    print("the Prefect server is gone; exiting", flush=True)
                    self._close_listener()
                elif self._retire_if_unused():
                    self._close_listener()
        return None

    def _retire_if_unused(self) -> bool:
        """Stop a server a command started once no command has used it for its `idle_s`
        (none runs a flow on it, none runs here); whether it was stopped."""
        from mathprobe.warm import server

        record = server.recorded()
        if record is None or record.api_url != self.api_url or record.idle_s is None \
                or self.children:
            self.unused_since = None
            return False
        with server.unused() as free:
            if not free:
                self.unused_since = None
                return False
            now = time.monotonic()
            self.unused_since = self.unused_since or now
            if now - self.unused_since < record.idle_s:
                return False
            print(f"the Prefect server (pid {record.pid}) was not used for {record.idle_s:.0f} s:"
                  " stopping it, and this runner", flush=True)
            server.retire(record)
        return True

    def _stop(self) -> None:
        for pid in self.children:
            _signal(pid, signal.SIGINT)
        self._close_listener()

    def _close_listener(self) -> None:
        if self.listener is None:
            return
        self.sel.unregister(self.listener)
        self.listener.close()
        self.listener = None
        if os.path.exists(self.path):
            os.unlink(self.path)
        record = warm.recorded()
        if record and record.get("pid") == os.getpid():
            (warm.state_dir() / warm.RECORD).unlink(missing_ok=True)

    def _accept(self) -> tuple | None:
        assert self.listener is not None       # its "listen" events come only while it is open
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            conn.settimeout(5.0)
            data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            size = int.from_bytes(data[:4], "big")
            data = data[4:]
            while len(data) < size:
                more = conn.recv(size - len(data))
                if not more:
                    raise ValueError("truncated request")
                data += more
            request = json.loads(data)
            if request.get("status"):
                conn.sendall(json.dumps(self._status()).encode() + b"\n")
                raise ValueError("answered")
            why = self._declines(request, fds)
            if why:
                conn.sendall(f"no {why}\n".encode())
                print(f"declined a command ({why}): it runs in its own process", flush=True)
                raise ValueError(why)
        except (OSError, ValueError):
            for fd in fds:
                os.close(fd)
            conn.close()
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._forget()
            conn.close()
            return request, fds
        for fd in fds:
            os.close(fd)
        try:
            client = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                         struct.calcsize("3i")))[0]
            process_names.record(pid, client, list(request["argv"]))
        except OSError as exc:
            print(f"could not record command {pid}'s client ({exc})", flush=True)
        self.served += 1
        command = next((a for a in request["argv"] if not a.startswith("-")), "")
        print(f"command {self.served} (pid {pid}): mathprobe {command} ...", flush=True)
        conn.settimeout(None)
        conn.sendall(f"ok {pid}\n".encode())
        self.children[pid] = conn
        self.sel.register(conn, selectors.EVENT_READ, pid)
        return None

    def _declines(self, request: dict, fds: list[int]) -> str | None:
        """Why this runner must not serve `request` (None: it may)."""
        if request.get("protocol") != warm.PROTOCOL or len(fds) != 3:
            return "protocol"
        if {k: request.get(k) for k in warm.identity()} != warm.identity():
            return "another-mathprobe"
        if self.listener is None or warm.fingerprint() != self.code:
            if not self.successor:                 # code changed: a fresh runner takes over
                self.successor = True
                self._close_listener()
                warm.start(self.api_url)
            return "code-changed"
        if _prefect_settings(request["env"]) != self.settings or \
                request["env"].get("PREFECT_API_URL", self.api_url) != self.api_url:
            return "other-prefect-settings"
        if not _server_answers(self.api_url):
            return "server-down"
        return None

    def _status(self) -> dict:
        return {"pid": os.getpid(), "served": self.served, "running": len(self.children),
                "ready_s": round(self.ready_s, 2), "api_url": self.api_url}

    def _client_gone(self, pid: int) -> None:
        conn = self.children.get(pid)
        if conn is not None and not conn.recv(1):
            self.sel.unregister(conn)
            _signal(pid, signal.SIGINT)            # as Ctrl-C: answers kept, resumable

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            process_names.forget(pid)
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(f"exit {code if code >= 0 else 128 - code}\n".encode())
            except OSError:
                pass
            if conn.fileno() in self.sel.get_map():
                self.sel.unregister(conn)
            conn.close()

    def _forget(self) -> None:
        """In a forked copy: drop everything of the runner's (socket, loop, signal handlers)."""
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for conn in self.children.values():
            conn.close()
        if self.listener is not None:
            self.listener.close()
        self.sel.close()
        os.close(self.wake_r)


def _become(request: dict, fds: list[int]) -> None:
    """Turn this forked copy into the command `request` describes, and run it."""
    os.setpgid(0, 0)            # `server stop` signals the runner's group, not running commands
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    os.umask(request["umask"])
    sys.argv = ["mathprobe", *request["argv"]]
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):       # (what a forked command's are)
            stream.reconfigure(line_buffering=stream.isatty())
    _recolour()
    from mathprobe.cli.main import main

    try:
        os.chdir(request["cwd"])
        main(request["argv"])
    except OSError as exc:
        sys.stderr.write(f"error: cannot enter the working directory: {exc}\n")
        _exit(2)
    except SystemExit as exc:
        _exit(exc.code)
    _exit(0)


def _exit(code) -> None:
    """End the copy as the command's own process ends (its threads joined, atexit handlers run,
    output flushed), but without tearing down the thousands of modules and objects it inherited:
    that finalisation took 0.5 s per command, and a C++ library aborted in it."""
    import atexit
    import threading

    if isinstance(code, str):                     # sys.exit("message")
        sys.stderr.write(code + "\n")
        code = 1
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(int(code or 0))


def _recolour() -> None:
    """Consoles made at import decided on colours for the runner's log file, not a terminal:
    decide again now that stdout/stderr are the command's (rich keeps that in
    `_color_system`; Prefect's console log handler has a console of its own)."""
    import logging

    from rich.console import Console

    from mathprobe.cli.common import err

    loggers = [logging.getLogger()] + [logger for logger in logging.root.manager.loggerDict
                                       .values() if isinstance(logger, logging.Logger)]
    consoles = [err] + [getattr(h, "console", None) for logger in loggers
                        for h in logger.handlers]
    for console in consoles:
        if isinstance(console, Console):
            console._color_system = console._detect_color_system()


def _server_answers(api_url: str) -> bool:
    from mathprobe.warm.server import healthy

    return healthy(api_url, timeout=2.0)


def _server_gone(api_url: str) -> bool:
    """Whether `mathprobe server start`'s server for `api_url` was stopped or died (not merely
    still starting, or busy)."""
    from mathprobe.warm import server

    record = server.recorded()
    return record is None or record.api_url != api_url or not record.alive()


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    run(sys.argv[1:])
