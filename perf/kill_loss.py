"""How far back a kill -9 reaches: the oldest answer lost, at each concurrency (issue 25).

The promise: an interrupted run loses at most the answers of its last second. For each
concurrency, `mathprobe run` asks all of WE-MATH (1740 questions with their images) of the
loopback fake API (tests/support/fake_api.py, in this process), which numbers every answer it
sends and notes when; the run is killed -9 once half the answers went out. The store, read
afterwards, shows which answers were kept: every answer sent and not kept is lost, and its age
at the kill (kill time - sent time) is how far back the kill reached. Printed per concurrency:
answers sent, kept, lost, and the oldest and median age of a lost one.

The runs use one real `prefect server start` of their own (temporary Prefect home).

    python perf/kill_loss.py [--concurrency 16 64 128 256 512] [--latency 0.25] [--repeat 2]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402
import httpx  # noqa: E402

from mathprobe.ports import free_port  # noqa: E402
from tests.support.fake_api import FakeAPI  # noqa: E402

N_ITEMS = 1740


class Numbered:
    """The fake API's reply: an answer carrying a serial; when each went out."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}
        self._lock = threading.Lock()

    def __call__(self, payload, prompt) -> str:
        with self._lock:
            n = len(self.sent)
            self.sent[n] = time.time()
        return f"<Thought process>: <<serial #{n}#>> <Answer>: <<A>>"


def prefect_server(folder: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(folder / "home"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false")
    proc = subprocess.Popen([str(Path(sys.executable).with_name("prefect")), "server", "start",
                             "--host", "127.0.0.1", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/api"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the Prefect server did not start")


def trial(concurrency: int, latency: float, url: str, data_dir: str, folder: Path) -> dict:
    numbered = Numbered()
    api = FakeAPI(latency=latency, reply=numbered, record=False).start()
    db = folder / f"kill-{concurrency}-{time.monotonic_ns()}.duckdb"
    env = dict(os.environ, PREFECT_API_URL=url, OPENAI_BASE_URL=api.openai_url,
               OPENAI_API_KEY="sk-bench", MATHPROBE_NO_WARM="1", PYTHONUNBUFFERED="1",
               PREFECT_LOGGING_LEVEL="WARNING")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "mathprobe", "run", "--benchmark",
                                 "wemath", "--model", "openai:m", "--run-id", "k", "--db",
                                 str(db), "--data-dir", data_dir, "--concurrency",
                                 str(concurrency)], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while len(numbered.sent) < N_ITEMS // 2 and proc.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.time()
        proc.wait()
        time.sleep(latency + 0.5)            # answers already on their way: counted as sent
    finally:
        api.stop()
    with duckdb.connect(str(db), read_only=True) as con:
        texts = [r[0] for r in con.execute("SELECT response FROM responses").fetchall()]
    kept = {int(m.group(1)) for t in texts if (m := re.search(r"serial #(\d+)#", t or ""))}
    sent_before = {n: t for n, t in numbered.sent.items() if t <= killed}
    lost = [killed - t for n, t in sent_before.items() if n not in kept]
    return {"sent": len(sent_before), "kept": len(kept), "lost": len(lost),
            "oldest": max(lost, default=0.0), "median": statistics.median(lost) if lost else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, nargs="+", default=[16, 64, 128, 256, 512])
    ap.add_argument("--latency", type=float, default=0.25)
    ap.add_argument("--repeat", type=int, default=2)
    opts = ap.parse_args()
    data_dir = os.environ.get("MATHPROBE_DATA_DIR") or str(REPO.parent / "shared" / "data")
    folder = Path(tempfile.mkdtemp(prefix="mathprobe-kill-loss-"))
    server, url = prefect_server(folder)
    try:
        print(f"kill -9 halfway through WE-MATH ({N_ITEMS} questions), answers after "
              f"{opts.latency} s; ages at the kill, in seconds")
        print(f"{'concurrency':>11} {'sent':>6} {'kept':>6} {'lost':>5} {'oldest lost':>12} "
              f"{'median lost':>12}")
        for c in opts.concurrency:
            for _ in range(opts.repeat):
                r = trial(c, opts.latency, url, data_dir, folder)
                print(f"{c:>11} {r['sent']:>6} {r['kept']:>6} {r['lost']:>5} "
                      f"{r['oldest']:>12.2f} {r['median']:>12.2f}", flush=True)
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
