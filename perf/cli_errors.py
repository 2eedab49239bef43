"""Time from starting a `mathprobe` command with bad input to its `error:` line.

Every check that needs no Prefect runs before a flow is imported (mathprobe/runs/preflight.py), so
a typo is reported in well under 2 s instead of after the 13-25 s Prefect start-up (and its
tracebacks) it used to wait for. Each case runs as a user runs it: the installed `mathprobe`
script in a fresh process, the API keys removed from the environment, no Prefect server
configured. For contrast, the last row times a valid tiny run to its end (Prefect's ephemeral
API starts there).

    python perf/cli_errors.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MATHPROBE = str(Path(sys.executable).with_name("mathprobe"))


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float | None, int, int, str]:
    """(seconds to exit, seconds to the first `error:` line or None, exit status, stderr
    lines, the error line)."""
    started = time.perf_counter()
    proc = subprocess.Popen([MATHPROBE, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=REPO)
    first_error, lines, message = None, 0, ""
    for line in proc.stderr:
        lines += 1
        if line.startswith("error:") and first_error is None:
            first_error, message = time.perf_counter() - started, line.strip()
    proc.wait()
    return time.perf_counter() - started, first_error, proc.returncode, lines, message


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    data = os.environ.get("MATHPROBE_DATA_DIR") or str(REPO.parent / "shared" / "data")
    tmp = Path(tempfile.mkdtemp(prefix="mathprobe-cli-errors-"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI", "ANTHROPIC", "PREFECT_API"))}
    env.update(MATHPROBE_DATA_DIR=data, PREFECT_HOME=str(tmp / "prefect"),
               PREFECT_SERVER_ANALYTICS_ENABLED="false", COLUMNS="200")
    db = str(tmp / "runs.duckdb")
    base = ["run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id", "r",
            "--db", db]
    # a graded run 'g' (one WE-MATH problem, imported) for the name checks of the reports
    rows = json.loads((Path(data) / "wemath" / "testmini.json").read_text())
    (tmp / "g.json").write_text(json.dumps([dict(r, response="<Answer>: <<A>>") for r in rows
                                            if r["ID"] == rows[0]["ID"]]))
    subprocess.run([MATHPROBE, "import", str(tmp / "g.json"), "--benchmark", "wemath",
                    "--run-id", "g", "--db", db], env=env, check=True, capture_output=True)
    cases = {
        "--benchmark typo": ["run", "--benchmark", "wemth", "--model", "baseline:random",
                             "--run-id", "r", "--db", db],
        "unknown --model prefix": base[:4] + ["nosuch:x"] + base[5:],
        "missing API key": base[:4] + ["openai:gpt-4o"] + base[5:],
        "missing --data-dir": base + ["--data-dir", str(tmp / "nowhere")],
        "data dir without the files": base + ["--data-dir", str(tmp)],
        "--limit -5": base + ["--limit", "-5"],
        "--concurrency 0": base + ["--concurrency", "0"],
        "--run-id ''": base[:6] + [""] + base[7:],
        "--setting typo": base + ["--setting", "cot"],
        "--limit abc (usage error)": base + ["--limit", "abc"],
        "contamination --method typo": ["contamination", "--model", "baseline:random", "--db",
                                        db, "--method", "rogue"],
        "report --grader typo": ["report", "--run-id", "g", "--db", db, "--grader", "oficial"],
        "compare --grader typo": ["compare", "g", "--db", db, "--grader", "oficial"],
        "report --html --grader typo": ["report", "--html", str(tmp / "r.html"), "--run-id",
                                        "g", "--db", db, "--grader", "oficial"],
        "compare --benchmark typo": ["compare", "--db", db, "--benchmark", "wemth"],
        "--run-id with '/'": base[:6] + ["a/b"] + base[7:],
        "--db in a missing folder": base[:8] + [str(tmp / "nowhere" / "runs.duckdb")],
    }
    print(f"{'case':32} {'to error: (s)':>14} {'exit':>5} {'stderr lines':>13}  error line")
    for name, args in cases.items():
        runs = [timed(args, env) for _ in range(opts.repeat)]
        to_error = [r[1] for r in runs if r[1] is not None]
        _, _, code, lines, message = runs[-1]
        median = f"{statistics.median(to_error):.2f}" if to_error else "none"
        print(f"{name:32} {median:>14} {code:>5} {lines:>13}  {message[:90]}")
    total, _, code, lines, _ = timed(base + ["--limit", "3", "--json"], env)
    print(f"{'(valid run, --limit 3, to exit)':32} {total:>14.2f} {code:>5} {lines:>13}  "
          "Prefect's ephemeral API starts here")
    print(json.dumps({"python": sys.version.split()[0], "repeat": opts.repeat}))


if __name__ == "__main__":
    main()
