"""What a user waits for around the model calls, side by side (issue 14).

1. `mathprobe run` to its first model request: with `mathprobe server start` running (the
   command is handed to its warm runner, flows/warm.py), the same with MATHPROBE_NO_WARM=1
   (the command imports everything itself), and without a server (the command starts
   Prefect's temporary one).
2. The first full WE-MATH run (1740 questions with images) against a loopback server answering
   after 50 ms, then the same command again: a resume of a finished run, which asks nothing
   (goal: under 10% of the first run's wall). Both as a user runs them: the installed
   `mathprobe` in a fresh process, with the local server running.
3. The fan-out figures for the same 1740 requests (perf/fanout.py's measurements): the
   OpenAI SDK alone in one event loop (the ceiling for any evaluator calling the SDK as it
   comes; and on the SDK's aiohttp transport, which the backend uses), and
   mathprobe's end-to-end wall from the command starting to its exit (the figure inspect_ai
   reports for an eval), with and without the local server.

Each command's environment has no PREFECT_API_URL; the local server and the temporary ones
use a Prefect home, state and cache folder of their own under a temporary folder (removed at
the end): the very first command builds the store template (tasks/store/template.py), the
medians are of commands that find it, as a user's commands after their first do.

    python perf/startup.py [--latency 0.05] [--concurrency 128] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from perf.fanout import sdk_alone  # noqa: E402
from mathprobe.tasks.registry import resolve_data_dir  # noqa: E402
from tests.support.fake_api import FakeAPI  # noqa: E402

MATHPROBE = str(Path(sys.executable).with_name("mathprobe"))


def command(args: list[str], env: dict[str, str], api: FakeAPI | None = None
            ) -> tuple[float, float | None, subprocess.CompletedProcess]:
    """(wall seconds to exit, seconds to the first request `api` saw or None, the result)."""
    seen = api.served if api is not None else 0
    started_wall, started = time.time(), time.perf_counter()
    done = subprocess.run([MATHPROBE, *args], env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"mathprobe {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    first = None
    if api is not None and api.served > seen:
        first = min(r["at"] for r in api.requests) - started_wall
        api.requests.clear()                     # (the request bodies: images; keep none)
    return wall, first, done


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each to-first-request case")
    ap.add_argument("--data-dir", default=None)
    opts = ap.parse_args()
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
               MATHPROBE_DATA_DIR=data_dir)
    env["OPENAI_BASE_URL"] = api.openai_url
    figures: dict[str, float] = {}
    try:
        def to_first_request(label: str, **extra: str) -> None:
            runs = [command(["run", "--benchmark", "wemath", "--model", "openai:bench",
                             "--run-id", f"{label}-{i}",
                             "--db", str(tmp / f"small-{label}.duckdb"),
                             "--limit", "12"], dict(env, **extra), api)
                    for i in range(opts.repeat)]
            figures[f"first_request_{label}_s"] = statistics.median(r[1] for r in runs)
            figures[f"small_run_{label}_s"] = statistics.median(r[0] for r in runs)

        def full_run(label: str) -> tuple[float, int]:
            """(wall seconds, requests served)."""
            served = api.served
            wall, _, _ = command(["run", "--benchmark", "wemath", "--model", "openai:bench",
                                  "--run-id", "full", "--db", str(tmp / f"{label}.duckdb"),
                                  "--concurrency", str(opts.concurrency)], env, api)
            return wall, api.served - served

        to_first_request("temporary")
        figures["full_run_temporary_s"], n = full_run("temporary")
        t = time.perf_counter()
        command(["server", "start"], env)
        figures["server_start_s"] = time.perf_counter() - t
        to_first_request("server")                  # handed to the warm runner
        to_first_request("own", MATHPROBE_NO_WARM="1")   # the server, but no warm runner
        figures["full_run_server_s"], n_full = full_run("server")
        figures["resume_server_s"], n_resume = full_run("server")     # the same command again
        figures["resume_requests"] = n_resume
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
    print(f"{'':46} {'local server':>13} {'no warm run.':>13} {'temporary':>13}")
    print(f"{'mathprobe run: command start to 1st request':46} "
          f"{f['first_request_server_s']:>11.2f} s {f['first_request_own_s']:>11.2f} s "
          f"{f['first_request_temporary_s']:>11.2f} s   (goal < 2 s)")
    print(f"{'mathprobe run --limit 12: wall to exit':46} "
          f"{f['small_run_server_s']:>11.2f} s {f['small_run_own_s']:>11.2f} s "
          f"{f['small_run_temporary_s']:>11.2f} s")
    print("  (local server: `mathprobe server start` running, commands handed to its warm "
          "runner;\n   no warm run.: the same with MATHPROBE_NO_WARM=1, each command in its own "
          "process)")
    print(f"{f'full WE-MATH run ({n_full} requests): wall':46} "
          f"{f['full_run_server_s']:>11.2f} s {f['full_run_temporary_s']:>11.2f} s")
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
                       ("temporary server", "full_run_temporary_s")):
        print(f"  mathprobe run end to end, {label + ':':17}                  {f[key]:6.2f} s = "
              f"{n / f[key]:4.0f} req/s (command start to exit: Prefect, data, asking, "
              "grading, report)")
    print("  (inspect_ai's end-to-end wall for the same requests, measured in issue 14: "
          "65.5 s = 27 req/s)")
    print(json.dumps({"python": sys.version.split()[0], **{k: round(v, 3)
                                                            for k, v in f.items()}}))


if __name__ == "__main__":
    main()
