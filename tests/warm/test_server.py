"""A Prefect server that is already there (issue 14): `mathprobe server start|status|stop`, runs
that use it (and show in its API), a finished run resumed without Prefect, and a stale record.

Every command runs as a user types it: the `mathprobe` CLI in a subprocess. The started server
is a real `prefect server start` on a Prefect home of its own under tmp (the one server these
tests start: starting one is what is under test); everything else uses the session's server.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import httpx
import pytest

from mathprobe.ports import free_port
from tests.conftest import REPO
from tests.support import early, servers
from tests.support.cli import cli_env, error_lines, mathprobe


def start_server() -> tuple[dict[str, str], subprocess.CompletedProcess]:
    """`mathprobe server start` with a state folder and Prefect home of its own under /tmp, on
    a free port: the default one (4200) is the README's, whose commands tests/test_readme.py
    runs at the same time in another worker (two servers on one port: one fails to start)."""
    env = servers.own_state()
    return env, mathprobe("server", "start", "--port", str(free_port()), env=env, timeout=120)


def stop_server(made) -> None:
    env, _ = made
    mathprobe("server", "stop", env=env, timeout=60)
    shutil.rmtree(Path(env["PREFECT_HOME"]).parent, ignore_errors=True)


@pytest.fixture(scope="module")
def started():
    """`mathprobe server start`, once for this module (stopped at the end, whatever happens)."""
    with early.held("mathprobe-server", start_server, stop_server) as made:
        yield made


def test_start_then_status_then_start_again(started):
    env, done = started
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Prefect server started in" in done.stdout
    url = re.search(r"API: (\S+)", done.stdout).group(1)
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200
    status = mathprobe("server", "status", env=env)
    assert status.returncode == 0 and "mathprobe server: running" in status.stdout
    assert "healthy" in status.stdout and url in status.stdout
    again = mathprobe("server", "start", env=env)           # finds it: no second server
    assert again.returncode == 0 and "already running" in again.stdout, again.stdout
    assert re.search(r"pid (\d+)", again.stdout).group(1) == \
        re.search(r"pid (\d+)", done.stdout).group(1)
    assert "Warm runner ready" in done.stdout and "Warm runner ready" in again.stdout
    assert warm_pid(env) == int(re.search(r"Warm runner ready \(pid (\d+)", again.stdout)[1])


def warm_status(env) -> tuple[int, int] | None:
    """(pid, commands served) of the warm runner, as `mathprobe server status` says."""
    said = re.search(r"warm runner: ready \(pid (\d+)\), (\d+) command",
                     mathprobe("server", "status", env=env).stdout)
    return (int(said[1]), int(said[2])) if said else None


def warm_pid(env) -> int | None:
    return (warm_status(env) or (None, 0))[0]


def test_a_cli_run_uses_the_started_server_and_shows_in_its_api(started, tmp_path, data_dir):
    env, done = started
    url = re.search(r"API: (\S+)", done.stdout).group(1)
    for _ in range(2):
        served = warm_status(env)
        run = mathprobe("run", "--benchmark", "wemath", "--model", "baseline:random",
                        "--run-id", "via-server", "--db", str(tmp_path / "s.duckdb"),
                        "--data-dir", str(data_dir), "--limit", "6", env=env)
        if warm_pid(env) == served[0]:
            break
        # the runner saw its code or packages change (another test's build or install in this
        # checkout) and handed over to a fresh runner: the command ran in its own process
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "temporary" not in run.stderr                   # no temporary server, no note
    assert warm_status(env) == (served[0], served[1] + 1)     # the warm runner ran it
    assert "run via-server  wemath" in run.stdout          # its report, on the command's stdout
    flow_runs = httpx.post(f"{url}/flow_runs/filter", timeout=30, json={
        "flow_runs": {"name": {"like_": "via-server"}}}).json()
    assert [(f["name"], f["state_type"]) for f in flow_runs] == [
        ("wemath:baseline:random:via-server", "COMPLETED")]


def test_a_run_in_its_own_process_uses_the_started_server_too(started, tmp_path, data_dir):
    """MATHPROBE_NO_WARM=1 (or a command the warm runner declines) runs the command here: it
    still finds the started server before Prefect is imported, instead of starting a temporary
    one (about 5 s more, and its run gone from the UI with it)."""
    env, done = started
    url = re.search(r"API: (\S+)", done.stdout).group(1)
    run = mathprobe("run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id",
                    "own-process", "--db", str(tmp_path / "o.duckdb"), "--data-dir",
                    str(data_dir), "--limit", "6", env=dict(env, MATHPROBE_NO_WARM="1"))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "temporary" not in run.stdout + run.stderr
    flow_runs = httpx.post(f"{url}/flow_runs/filter", timeout=30, json={
        "flow_runs": {"name": {"like_": "own-process"}}}).json()
    assert [(f["name"], f["state_type"]) for f in flow_runs] == [
        ("wemath:baseline:random:own-process", "COMPLETED")]


def test_a_warm_command_is_the_command_in_the_users_folder_and_terminal(started, tmp_path,
                                                                         data_dir):
    """Served by the warm runner, a command takes the caller's working directory and
    environment, and prints, fails and exits exactly as in a process of its own."""
    env, _ = started
    pid, served = warm_status(env)
    user = dict(env, MATHPROBE_DATA_DIR=str(data_dir))
    run = subprocess.run([sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath",
                          "--model", "baseline:random", "--run-id", "here", "--db", "rel.duckdb",
                          "--limit", "6"], cwd=tmp_path, env=user, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "rel.duckdb").exists()               # the caller's folder, its data dir
    cases = [("report", "--db", str(tmp_path / "rel.duckdb"), "--run-id", "here", "--json"),
             ("run", "--benchmark", "wemath", "--model", "baseline:chance", "--run-id", "x",
              "--db", str(tmp_path / "x.duckdb")),                      # a user error: exit 2
             ("sql", "SELECT count(*) AS n FROM responses", "--db", str(tmp_path / "rel.duckdb"))]
    for args in cases:
        warm_done = mathprobe(*args, env=user)
        own = mathprobe(*args, env=dict(user, MATHPROBE_NO_WARM="1"))
        assert (warm_done.returncode, warm_done.stdout) == (own.returncode, own.stdout), args
        assert error_lines(warm_done.stderr) == error_lines(own.stderr), args
    assert json.loads(mathprobe(*cases[0], env=user).stdout)["run"]["run_id"] == "here"
    assert warm_status(env) == (pid, served + 1 + len(cases) + 1)


def test_ctrl_c_on_a_warm_command_keeps_its_answers_and_the_same_command_resumes(
        started, tmp_path, data_dir):
    from tests.support.fake_api import FakeAPI

    env, _ = started
    api = FakeAPI(latency=0.4).start()
    user = dict(env, OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-warm")
    args = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
            "openai:gpt-4o-mini", "--run-id", "ctrl-c", "--db", str(tmp_path / "c.duckdb"),
            "--data-dir", str(data_dir), "--limit", "40", "--concurrency", "2"]
    try:
        pid, served = warm_status(env)
        proc = subprocess.Popen(args, cwd=tmp_path, env=user, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while api.served < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)                       # as Ctrl-C in the terminal
        out, errs = proc.communicate(timeout=60)
        assert proc.returncode == 130, errs[-2000:]
        assert "Execution was aborted by an interrupt signal" in errs   # as in its own process
        assert "error: interrupted; run the same command again to resume" in errs
        asked = api.served
        assert 6 <= asked < 40
        before = answered(tmp_path / "c.duckdb")[0]
        assert before >= 4                                    # what was answered is kept
        assert warm_status(env) == (pid, served + 1)
        api.latency = 0.0                                     # the rest need not be slow
        again = subprocess.run(args, cwd=tmp_path, env=user, capture_output=True, text=True,
                               timeout=120)
        assert again.returncode == 0, again.stderr[-2000:]
    finally:
        api.stop()
    n, items = answered(tmp_path / "c.duckdb")
    assert n == items > before                              # each item once, none twice
    assert api.served - asked == items - before             # only what was not kept is asked


def answered(db: Path) -> tuple[int, int]:
    """(answers stored, distinct items answered) of run ctrl-c."""
    with duckdb.connect(str(db), read_only=True) as con:
        return con.sql("SELECT count(*), count(DISTINCT item_id) FROM responses "
                       "WHERE run_id = 'ctrl-c' AND status = 'ok'").fetchone()


def test_a_killed_warm_command_stops_its_copy_and_errors_name_the_users_command(
        started, tmp_path, data_dir):
    """Issue 33 item 8. While a run handed to the warm runner writes a store, another command on
    that store is told which command holds it: the one the user ran (its command line and pid),
    not the runner's copy (whose pid the user never saw). kill -9 of the user's command stops
    the copy promptly (as Ctrl-C: its answers kept, the run `interrupted`), and the same command
    run again at once resumes: it waits for the stopping copy instead of failing on its lock."""
    from tests.support.fake_api import FakeAPI

    env, _ = started
    api = FakeAPI(latency=0.3).start()
    user = dict(env, OPENAI_BASE_URL=api.openai_url, OPENAI_API_KEY="sk-test-named")
    db = tmp_path / "named.duckdb"
    args = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
            "openai:gpt-4o-mini", "--run-id", "named", "--db", str(db), "--data-dir",
            str(data_dir), "--limit", "40", "--concurrency", "1"]

    def start_asking(at_least: int) -> subprocess.Popen:
        proc = subprocess.Popen(args, cwd=tmp_path, env=user, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while api.served < at_least:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        return proc

    try:
        pid, served = warm_status(env)
        first = start_asking(4)
        assert warm_status(env)[1] == served + 1                # handed to the runner
        busy = mathprobe("sql", "SELECT 1", "--db", str(db), env=user)
        lines = error_lines(busy.stderr)
        assert len(lines) == 1, (busy.returncode, busy.stdout[-2000:], busy.stderr[-3000:],
                                 api.served)
        (line,) = lines
        assert line.startswith(f"error: {db} is open for writing in another process: `mathprobe "
                               "run --benchmark wemath --model openai:gpt-4o-mini --run-id "
                               f"named --db {db} "), line
        assert f"(PID {first.pid}; the warm runner runs it as PID " in line, line
        copy = int(re.search(r"the warm runner runs it as PID (\d+)", line)[1])
        assert copy != first.pid
        first.kill()
        first.wait(timeout=30)
        assert _gone(copy, timeout=15), "the copy of the killed command went on"
        with duckdb.connect(str(db), read_only=True) as con:
            status, kept = con.sql("SELECT status, (SELECT count(*) FROM responses WHERE "
                                   "status = 'ok') FROM runs WHERE run_id = 'named'").fetchone()
        assert status == "interrupted" and 4 <= kept < 40
        second = start_asking(api.served + 2)
        second.kill()                                           # and at once, the same again
        again = subprocess.run(args, cwd=tmp_path, env=user, capture_output=True, text=True,
                               timeout=180)
        assert again.returncode == 0, again.stderr[-3000:]
    finally:
        api.stop()
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT count(*), count(DISTINCT item_id) FROM responses WHERE run_id = "
                       "'named' AND status = 'ok'").fetchone() == (40, 40)


def test_changed_code_or_other_prefect_settings_run_in_their_own_process(started, tmp_path):
    """The runner serves only commands that would import what it imported; others run in a
    process of their own, and an edit of mathprobe's code brings up a fresh runner."""
    env, _ = started
    pid, served = warm_status(env)
    args = ("sql", "SELECT 42 AS answer", "--db", str(tmp_path / "q.duckdb"))
    duckdb.connect(str(tmp_path / "q.duckdb")).close()
    other = mathprobe(*args, env=dict(env, PREFECT_LOGGING_LEVEL="WARNING"))
    assert "42" in other.stdout, other.stderr
    assert warm_status(env) == (pid, served)                # not the runner's
    os.utime(REPO / "mathprobe" / "warm" / "launch.py")                  # as an edit does
    edited = mathprobe(*args, env=env)
    assert "42" in edited.stdout, edited.stderr
    deadline = time.monotonic() + 90                        # its successor warms up
    while warm_pid(env) in (None, pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    new_pid, new_served = warm_status(env)
    assert new_pid != pid and new_served == 0
    assert "42" in mathprobe(*args, env=env).stdout
    assert warm_status(env) == (new_pid, 1)
    assert _gone(pid)                                     # the old one left once idle


_gone = servers.gone


def test_stop_then_status_says_none(started):
    env, done = started
    url = re.search(r"API: (\S+)", done.stdout).group(1)
    runner = warm_pid(env)
    stop = mathprobe("server", "stop", env=env)
    assert stop.returncode == 0 and "Prefect server stopped" in stop.stdout, stop.stdout
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{url}/health", timeout=2)
    status = mathprobe("server", "status", env=env)
    assert "No Prefect server: the next run starts one" in status.stdout
    assert "No mathprobe Prefect server was running." in mathprobe("server", "stop",
                                                                   env=env).stdout
    assert runner is not None and _gone(runner)              # the warm runner stopped with it


def test_a_stale_record_is_said_so_and_a_reused_pid_is_never_signalled(tmp_path):
    """The record names a process that is gone, or whose pid now belongs to another program:
    status says so, stop removes the record and signals nothing, start would replace it."""
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        env = servers.own_state(tmp_path)
        record = tmp_path / "state" / "server" / "server.json"
        record.parent.mkdir(parents=True)
        for pid in (bystander.pid, _gone_pid()):
            port = free_port()
            record.write_text(json.dumps({"pid": pid, "port": port, "home": str(tmp_path),
                                          "log": str(tmp_path / "server.log")}))
            status = mathprobe("server", "status", env=env)
            text = " ".join(status.stdout.split())
            assert status.returncode == 0, status.stderr
            assert (f"Stale record: the Prefect server recorded in {record} (pid {pid}, "
                    f"port {port}) is no longer running") in text, text
            assert "No Prefect server: the next run starts one" in text
            stop = mathprobe("server", "stop", env=env)
            assert f"Nothing to stop: the Prefect server recorded in {record} (pid {pid}" \
                in " ".join(stop.stdout.split()), stop.stdout
            assert not record.exists()
        assert bystander.poll() is None                   # the pid's new owner: untouched
    finally:
        bystander.kill()
        bystander.wait()


def _gone_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_resuming_a_finished_run_asks_nothing_and_never_imports_prefect(
        prefect_harness, fake_openai, tmp_path, data_dir):
    db = str(tmp_path / "r.duckdb")
    args = ("run", "--benchmark", "wemath", "--model", "openai:gpt-4o-mini", "--run-id", "done",
            "--db", db, "--data-dir", str(data_dir), "--limit", "30", "--json")
    first = mathprobe(*args, env=cli_env(fake_openai))
    assert first.returncode == 0, first.stderr[-2000:]
    asked = fake_openai.served
    assert asked >= 30
    # again, with no Prefect server reachable at all and imports traced
    env = cli_env(fake_openai, PREFECT_API_URL=f"http://127.0.0.1:{free_port()}/api",
                  PYTHONPROFILEIMPORTTIME="1")
    again = mathprobe(*args, env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert fake_openai.served == asked                    # 0 requests
    imported = [line.split("|")[-1].strip() for line in again.stderr.splitlines()
                if line.startswith("import time:")]
    assert "mathprobe.runs.finished" in imported and "duckdb" in imported  # the trace works
    assert not [m for m in imported if m.split(".")[0] == "prefect"], "Prefect was imported"
    # nor pandas: duckdb imports it (0.3-0.7 s) to bind a parameter, unless the command hides
    # it (the trace then lists duckdb's attempts at `pandas` itself, none of its modules)
    assert not [m for m in imported if m.startswith("pandas.")], "pandas was imported"
    assert "run done: nothing left to ask or grade" in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)      # the same report


def test_start_on_a_port_another_program_takes_fails_in_one_line(tmp_path):
    """Another program takes the port between the check that it is free and the server's
    start (as a second `prefect server start` on the same port does) and answers the health
    check: `server start` must not report that program as its server (it did: "started",
    while its own server had died with "Port ... is already in use", and pointed the warm
    runner at the other). One `error:` line, no record left."""
    import http.server
    import threading

    port = free_port()

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):                                    # noqa: N802 - http.server's name
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"true")

        def log_message(self, *args):
            pass

    taken = threading.Event()

    def take_when_started() -> None:
        """Bind the port as soon as a `prefect server start --port PORT` process appears."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    args = cmdline.read_bytes().split(b"\0")
                except OSError:
                    continue
                if b"--host" in args and str(port).encode() in args:     # prefect's
                    other = http.server.HTTPServer(("127.0.0.1", port), Health)
                    taken.set()
                    threading.Thread(target=other.serve_forever, daemon=True).start()
                    holders.append(other)
                    return
            time.sleep(0.005)

    holders: list = []
    taker = threading.Thread(target=take_when_started, daemon=True)
    taker.start()
    env = servers.own_state(tmp_path)
    try:
        done = mathprobe("server", "start", "--port", str(port), env=env, timeout=120)
    finally:
        taker.join(timeout=60)
        for other in holders:
            other.shutdown()
    assert taken.is_set(), "the other program never got the port"
    assert done.returncode != 0, done.stdout + done.stderr
    assert "Prefect server started" not in done.stdout
    lines = error_lines(done.stderr)
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "the Prefect server exited at start" in lines[0]
    assert not (tmp_path / "state" / "server" / "server.json").exists()
    assert mathprobe("server", "status", env=env).stdout.startswith("No Prefect server")
