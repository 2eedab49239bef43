"""What a user waits for around the model calls, side by side (issue 14).

1. `mathprobe run` to its first model request: with `mathprobe server start` running (the
   command is handed to its warm runner, mathprobe/warm/), the same with MATHPROBE_NO_WARM=1
   (the command imports everything itself), and without a server (the first command starts
   the local server for itself and the next ones: mathprobe/warm/server.py; the figure is
   that first command's, and the next ones' are the local server's).
2. The first full WE-MATH run (1740 questions with images) against a loopback server answering
   after 50 ms, then the same command again: a resume of a finished run, which asks nothing
   (goal: under 10% of the first run's wall). Both as a user runs them: the installed
   `mathprobe` in a fresh process, with the local server running.
3. The fan-out figures for the same 1740 requests (perf/fanout.py's measurements): the
   OpenAI SDK alone in one event loop (the ceiling for any evaluator calling the SDK as it
   comes; and on the SDK's aiohttp transport, which the backend uses), and
   mathprobe's end-to-end wall from the command starting to its exit (the figure inspect_ai
   reports for an eval), with and without the local server.
4. With `--inspect BIN` (the bin folder of a virtualenv holding inspect-ai and openai, never
   mathprobe's own): the same full WE-MATH run side by side with `inspect eval`
   (perf/inspect_wemath.py: the same prompts, images and settings, --max-connections
   128, the chat completions API) against the same loopback server, interleaved `--repeat`
   times: wall from command to exit, command to first request, and the peak memory (VmHWM)
   of the process that ran the evaluation (mathprobe's: the warm runner's copy that ran the
   command, and a command run with MATHPROBE_NO_WARM=1; inspect's: its one process).

Each command's environment has no PREFECT_API_URL; the local server uses a Prefect home,
state and cache folder and a port (PREFECT_SERVER_API_PORT) of its own under a temporary folder
(removed at the end): the very first command builds the store template
(mathprobe/store/template.py), the medians are of commands that find it, as a user's commands
after their first do. `--load N` keeps N processes spinning on a core each for the whole
measurement (a loaded machine: on 2 cores, `--load 2` gives a load average of 2-3 with the
commands); the load average each figure was taken at is printed beside it.

    python perf/startup.py [--latency 0.05] [--concurrency 128] [--repeat 3] [--load N]
        [--only-first-request] [--inspect /tmp/inspect-venv/bin]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mathprobe.ports import free_port  # noqa: E402
from mathprobe.registry import resolve_data_dir  # noqa: E402
from perf.fanout import sdk_alone  # noqa: E402
from tests.support.fake_api import FakeAPI  # noqa: E402

MATHPROBE = str(Path(sys.executable).with_name("mathprobe"))


def command(args: list[str], env: dict[str, str], api: FakeAPI | None = None,
            program: list[str] | None = None, cwd: Path = REPO,
            ) -> tuple[float, float | None, subprocess.CompletedProcess, float | None]:
    """(wall seconds to exit, seconds to the first request `api` saw or None, the result,
    peak memory in MB of the process that ran it: the command's own, or, handed to the warm
    runner, the runner's copy that ran it)."""
    seen = api.served if api is not None else 0
    program = program or [MATHPROBE]
    runner = (json.loads(Path(env["MATHPROBE_STATE_DIR"], "server", "warm.json").read_text())
              if program == [MATHPROBE] and "MATHPROBE_NO_WARM" not in env
              and Path(env["MATHPROBE_STATE_DIR"], "server", "warm.json").exists() else None)
    peak = PeakOfChildren(runner["pid"]) if runner else None
    started_wall, started = time.time(), time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M", *program, *args], env=env,
                          cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(program + args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    first = None
    if api is not None and api.served > seen:
        first = min(r["at"] for r in api.requests) - started_wall
        api.requests.clear()                     # (the request bodies: images; keep none)
    own = re.findall(r"MAXRSS (\d+)", done.stderr)
    return wall, first, done, peak.stop() if peak else int(own[-1]) / 1024


class PeakOfChildren:
    """The highest VmHWM (peak resident memory) of any child of `pid` while it runs, and the
    highest memory of its own (private pages: not shared with `pid`, the warm runner whose
    imports a forked copy shares)."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.private, self._stop = pid, 0.0, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.wait(0.02):
            try:
                children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
            except OSError:
                continue
            for child in children:
                try:
                    status = Path(f"/proc/{child}/status").read_text()
                except OSError:
                    continue
                hwm = re.search(r"VmHWM:\s+(\d+)", status)
                if hwm:
                    self.peak = max(self.peak, int(hwm.group(1)) / 1024)
                try:
                    rollup = Path(f"/proc/{child}/smaps_rollup").read_text()
                except OSError:
                    continue
                own = sum(int(kb) for kb in
                          re.findall(r"Private_(?:Clean|Dirty):\s+(\d+)", rollup))
                self.private = max(self.private, own / 1024)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        PRIVATE.append(self.private)
        return self.peak


PRIVATE: list[float] = []     # each warm command's own memory (PeakOfChildren.private)


def inspect_samples(data_dir: str, path: Path) -> None:
    """The WE-MATH run's prompts and images, for perf/inspect_wemath.py."""
    from mathprobe.registry import get

    bench = get("wemath")
    with open(path, "w") as out:
        for item in bench.load(Path(data_dir)).items:
            out.write(json.dumps({"id": item.item_id, "gold": item.gold,
                                  "image": item.image_path,
                                  "prompt": bench.prompt(item, "plain")}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each to-first-request case")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--inspect", default=None, help="bin folder of a virtualenv with inspect-ai "
                    "and openai: adds the side-by-side full run (4.)")
    ap.add_argument("--only-side-by-side", action="store_true", help="with --inspect: skip 1-3")
    ap.add_argument("--only-first-request", action="store_true", help="1. only")
    ap.add_argument("--load", type=int, default=0, help="processes kept spinning meanwhile")
    opts = ap.parse_args()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(opts.load)]
    try:
        measure(opts)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def measure(opts) -> None:
    data_dir = str(resolve_data_dir(opts.data_dir))
    tmp = Path(tempfile.mkdtemp(prefix="mathprobe-startup-"))
    api = FakeAPI(latency=opts.latency).start()        # records when each request came
    # the SDK-alone ceiling runs in this process: its server gets a process of its own
    ceiling = subprocess.Popen([sys.executable, "-m", "tests.support.fake_api", "--latency",
                                str(opts.latency)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    ceiling_url = f"http://127.0.0.1:{int(ceiling.stdout.readline())}/v1"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PREFECT_API", "OPENAI", "ANTHROPIC"))}
    env.update(MATHPROBE_STATE_DIR=str(tmp / "state"), PREFECT_HOME=str(tmp / "home"),
               MATHPROBE_CACHE_DIR=str(tmp / "cache"),    # the first command builds the template
               PREFECT_SERVER_ANALYTICS_ENABLED="false", OPENAI_API_KEY="sk-bench",
               PREFECT_SERVER_API_PORT=str(free_port()), MATHPROBE_DATA_DIR=data_dir)
    env["OPENAI_BASE_URL"] = api.openai_url
    figures: dict[str, float] = {}
    loads: dict[str, float] = {}
    try:
        def to_first_request(label: str, repeat: int = opts.repeat, **extra: str) -> None:
            runs, at = [], []
            for i in range(repeat):
                at.append(os.getloadavg()[0])
                runs.append(command(["run", "--benchmark", "wemath", "--model", "openai:bench",
                                     "--run-id", f"{label}-{i}",
                                     "--db", str(tmp / f"small-{label}.duckdb"),
                                     "--limit", "12"], dict(env, **extra), api))
            figures[f"first_request_{label}_s"] = statistics.median(r[1] for r in runs)
            figures[f"small_run_{label}_s"] = statistics.median(r[0] for r in runs)
            loads[label] = statistics.median(at)

        def full_run(label: str) -> tuple[float, int]:
            """(wall seconds, requests served)."""
            served = api.served
            wall, *_ = command(["run", "--benchmark", "wemath", "--model", "openai:bench",
                                "--run-id", "full", "--db", str(tmp / f"{label}.duckdb"),
                                "--concurrency", str(opts.concurrency)], env, api)
            return wall, api.served - served

        if opts.only_side_by_side:
            command(["server", "start"], env)
            side = side_by_side(opts, env, api, tmp)
            return print_side_by_side(side, opts)
        to_first_request("none", repeat=1)       # no server: it starts the local one
        command(["server", "stop"], env)
        figures["full_run_none_s"], n = full_run("none")      # starts it again, and keeps it
        command(["server", "stop"], env)
        t = time.perf_counter()
        command(["server", "start"], env)
        figures["server_start_s"] = time.perf_counter() - t
        to_first_request("server")                  # handed to the warm runner
        to_first_request("own", MATHPROBE_NO_WARM="1")   # the server, but no warm runner
        if opts.only_first_request:
            f = figures
            print(f"mathprobe run to its first request, medians of {opts.repeat}: "
                  f"{f['first_request_server_s']:.2f} s with a local server running (warm "
                  f"runner; load {loads['server']:.1f}), {f['first_request_own_s']:.2f} s "
                  f"MATHPROBE_NO_WARM=1 (load {loads['own']:.1f}), "
                  f"{f['first_request_none_s']:.2f} s with none (it starts one; load "
                  f"{loads['none']:.1f})")
            print(json.dumps({"python": sys.version.split()[0], "loads": loads,
                              **{k: round(v, 3) for k, v in f.items()}}))
            return
        figures["full_run_server_s"], n_full = full_run("server")
        figures["resume_server_s"], n_resume = full_run("server")     # the same command again
        figures["resume_requests"] = n_resume
        side = side_by_side(opts, env, api, tmp) if opts.inspect else None
        os.environ.update(OPENAI_BASE_URL=ceiling_url, OPENAI_API_KEY="sk-bench")
        sdk_s = figures["sdk_alone_s"] = sdk_alone(Path(data_dir), opts.concurrency, 1, "httpx2")
        figures["sdk_alone_aiohttp_s"] = sdk_alone(Path(data_dir), opts.concurrency, 1, "aiohttp")
    finally:
        command(["server", "stop"], env)
        api.stop()
        ceiling.terminate()
        ceiling.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    f = figures
    print(f"{'':46} {'local server':>13} {'no warm run.':>13} {'no server':>13}")
    print(f"{'mathprobe run: command start to 1st request':46} "
          f"{f['first_request_server_s']:>11.2f} s {f['first_request_own_s']:>11.2f} s "
          f"{f['first_request_none_s']:>11.2f} s   (goal < 1 s)")
    print(f"{'  (load average)':46} {loads['server']:>13.1f} {loads['own']:>13.1f} "
          f"{loads['none']:>13.1f}")
    print(f"{'mathprobe run --limit 12: wall to exit':46} "
          f"{f['small_run_server_s']:>11.2f} s {f['small_run_own_s']:>11.2f} s "
          f"{f['small_run_none_s']:>11.2f} s")
    print("  (local server: `mathprobe server start` running, commands handed to its warm "
          "runner;\n   no warm run.: the same with MATHPROBE_NO_WARM=1, each command in its own "
          "process;\n   no server: the command starts the local server, which the next use)")
    print(f"{f'full WE-MATH run ({n_full} requests): wall':46} "
          f"{f['full_run_server_s']:>11.2f} s {f['full_run_none_s']:>11.2f} s")
    print(f"{f'resume of the finished run ({n_resume} requests)':46} {f['resume_server_s']:>11.2f} s "
          f"= {f['resume_server_s'] / f['full_run_server_s']:.1%} of the first run (goal < 10%)")
    print(f"{'mathprobe server start (once)':46} {f['server_start_s']:>11.2f} s")
    print(f"\nfan-out, {n} WE-MATH requests with images, {opts.latency * 1000:.0f} ms server, "
          f"concurrency {opts.concurrency}:")
    print(f"  OpenAI SDK alone, one event loop, default transport (the ceiling): {sdk_s:6.2f} s = "
          f"{n / sdk_s:4.0f} req/s")
    print(f"  OpenAI SDK alone, one event loop, aiohttp (the backend's):          "
          f"{f['sdk_alone_aiohttp_s']:6.2f} s = {n / f['sdk_alone_aiohttp_s']:4.0f} req/s")
    for label, key in (("local server", "full_run_server_s"),
                       ("no server first", "full_run_none_s")):
        print(f"  mathprobe run end to end, {label + ':':17}                  {f[key]:6.2f} s = "
              f"{n / f[key]:4.0f} req/s (command start to exit: Prefect, data, asking, "
              "grading, report)")
    print("  (inspect_ai's end-to-end wall for the same requests, measured in issue 14: "
          "65.5 s = 27 req/s)")
    print(json.dumps({"python": sys.version.split()[0], **{k: round(v, 3)
                                                            for k, v in f.items()}}))
    if side:
        print_side_by_side(side, opts)


def side_by_side(opts, env: dict[str, str], api: FakeAPI, tmp: Path) -> dict[str, list]:
    """The full WE-MATH run by `mathprobe run` (handed to the warm runner; and in its own
    process) and by `inspect eval`, interleaved: {label: [(wall, first request, peak MB,
    load average)]}."""
    samples = tmp / "inspect-samples.jsonl"
    inspect_samples(env["MATHPROBE_DATA_DIR"], samples)
    command(["run", "--benchmark", "wemath", "--model", "openai:bench", "--run-id", "warm-up",
             "--db", str(tmp / "warm-up.duckdb"), "--limit", "3"], env, api)  # builds the
    # store template once, as a user's first command does (1-3 did it when they ran)
    inspect_env = dict(env, WEMATH_SAMPLES=str(samples), INSPECT_LOG_DIR=str(tmp / "logs"))
    out: dict[str, list] = {"mathprobe": [], "mathprobe, own process": [], "inspect_ai": []}
    for r in range(opts.repeat):
        for label in (list(out) if r % 2 == 0 else list(out)[::-1]):
            load = os.getloadavg()[0]
            if label == "inspect_ai":
                wall, first, _, peak = command(
                    ["eval", "inspect_wemath.py", "--model", "openai/bench", "-M",
                     "responses_api=false", "--max-connections", str(opts.concurrency),
                     "--display", "plain"], inspect_env, api,
                    program=[str(Path(opts.inspect, "inspect"))], cwd=REPO / "perf")
            else:
                own = {"MATHPROBE_NO_WARM": "1"} if "own" in label else {}
                wall, first, _, peak = command(
                    ["run", "--benchmark", "wemath", "--model", "openai:bench", "--run-id",
                     f"side-{r}", "--db", str(tmp / f"side-{r}-{len(own)}.duckdb"),
                     "--concurrency", str(opts.concurrency)], dict(env, **own), api)
            out[label].append((wall, first, peak, load))
            print(f"  {label:24} wall {wall:6.2f} s  first request {first:5.2f} s  peak "
                  f"{peak:4.0f} MB  (load {load:.1f})", flush=True)
    return out


def print_side_by_side(side: dict[str, list], opts) -> None:
    med = {k: [statistics.median(r[i] for r in v) for i in range(4)] for k, v in side.items()}
    print(f"\nside by side, full WE-MATH with images, --concurrency / --max-connections "
          f"{opts.concurrency}, {opts.latency * 1000:.0f} ms server, medians of {opts.repeat} "
          "(interleaved):")
    for label, (wall, first, peak, load) in med.items():
        print(f"  {label:24} wall {wall:6.2f} s  first request {first:5.2f} s  peak memory "
              f"{peak:4.0f} MB  (load {load:.1f})")
    if PRIVATE:
        print(f"  (the warm runner's copy shares the runner's imports, the SDKs of the backends "
              f"it is set up for included; its own memory peaked at {statistics.median(PRIVATE):.0f} MB)")
    ours, theirs = med["mathprobe"], med["inspect_ai"]
    own = med["mathprobe, own process"]
    print(f"  mathprobe end to end: {theirs[0] / ours[0]:.1f}x inspect_ai's speed (goal >= 5x; "
          f"{theirs[0] / own[0]:.1f}x in a process of its own); peak memory {own[2]:.0f} MB in "
          f"a process of its own, {ours[2]:.0f} MB in the warm runner's copy, vs "
          f"{theirs[2]:.0f} MB (goal: at most inspect_ai's)")


if __name__ == "__main__":
    main()
