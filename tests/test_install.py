"""mathprobe as a user installs it: the wheel built from this checkout, installed with the pinned
constraints into a fresh virtualenv (the core, no extras), used from a folder that also holds
the user's own `tasks.py` and `flows/` (names that collide with any top-level package called
so), and deployed from the installed package alone (`mathprobe deploy up`, no checkout): the
deployments' defaults, as pressing Run in the Prefect UI uses them, complete."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from mathprobe.ports import free_port
from tests.conftest import REPO, shared_data_dir

HEAVY = ("torch", "transformers", "nvidia-pytriton", "tritonclient", "scikit-learn", "datasketch",
         "scipy", "matplotlib", "openai", "anthropic", "duckdb-extension-ducklake", "rouge-score")


@dataclass
class Installed:
    wheel: Path
    sdist: Path
    venv: Path
    home: Path                      # the user's folder: tasks.py, flows/, the stores
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 240, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=self.home, env={**self.env, **env}, text=True,
                              capture_output=True, timeout=timeout)

    def mathprobe(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return self.run(str(self.venv / "bin" / "mathprobe"), *args, **kw)

    def prefect(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return self.run(str(self.venv / "bin" / "prefect"), *args, **kw)


def _build(out: Path) -> tuple[Path, Path]:
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                           str(REPO)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,), (sdist,) = out.glob("*.whl"), out.glob("*.tar.gz")
    return wheel, sdist


def _venv(wheel: Path, venv: Path) -> None:
    """The core install, as `pip install mathprobe` gives it (the project's pip installs into the
    new environment: ~15 s from pip's cache, without byte-compiling)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                           "install", "-q", "--no-compile", "-c", str(REPO / "constraints.txt"),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    wheel, sdist = _build(root / "dist")
    _venv(wheel, root / "venv")
    home = root / "home"
    (home / "flows").mkdir(parents=True)
    (home / "tasks.py").write_text("raise SystemExit('the user tasks.py was imported')\n")
    (home / "flows" / "__init__.py").write_text("raise SystemExit('the user flows/ was imported')\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PREFECT_", "MATHPROBE_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(PATH=f"{root / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               PREFECT_HOME=str(root / "prefect-home"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_WORKER_QUERY_SECONDS="1", MATHPROBE_STATE_DIR=str(root / "state"),
               MATHPROBE_NO_WARM="1", STATE_DIR=str(root / "team"),
               PYTHONUNBUFFERED="1")
    made = Installed(wheel, sdist, root / "venv", home, env)
    up = made.mathprobe("deploy", "up", "--port", str(port), "--data-dir",
                        str(shared_data_dir()), "--db", "team.duckdb")
    made.env["PREFECT_API_URL"] = f"http://127.0.0.1:{port}/api"
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        yield made
    finally:
        made.mathprobe("deploy", "down", timeout=60)


def test_the_wheel_holds_one_import_root_and_its_data(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"mathprobe", "mathprobe-0.1.0.dist-info"}
    for data in ("mathprobe/sql/core/tables/runs.sql",
                 "mathprobe/sql/wemath/figures/wemath_four_dimensional.sql",
                 "mathprobe/triton_models/lmm_generate/config.pbtxt",
                 "mathprobe/triton_models/lmm_generate/1/model.py",
                 "mathprobe/reports/templates/report.html.j2",
                 "mathprobe/backends/prices.toml", "mathprobe/deploy/prefect.yaml",
                 "mathprobe/deploy/local.sh"):
        assert data in names, data
    # every SQL file of the checkout ships (the store applies them all)
    assert {n for n in names if n.endswith(".sql")} == {
        f"mathprobe/{p.relative_to(REPO)}" for p in (REPO / "sql").rglob("*.sql")}
    with tarfile.open(installed.sdist) as sdist:
        assert any(n.endswith("/mathprobe/flows/eval.py") for n in sdist.getnames())
    # installed, the package is found under site-packages, not in this checkout
    where = installed.run(str(installed.venv / "bin" / "python"), "-c",
                          "import mathprobe.paths as p; print(p.SQL_DIR)")
    assert where.returncode == 0, where.stderr
    assert str(installed.venv) in where.stdout and str(REPO) not in where.stdout


def test_the_core_install_has_no_heavy_extra_and_says_which_to_add(installed):
    listed = installed.run(sys.executable, "-m", "pip", "--python",
                           str(installed.venv / "bin" / "python"), "list", "--format", "json")
    have = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "prefect" in have and "duckdb" in have
    assert not [h for h in HEAVY if h in have], have
    cases = {
        ("run", "--benchmark", "wemath", "--model", "triton:lmm_generate", "--run-id", "t",
         "--db", "t.duckdb", "--data-dir", str(shared_data_dir())):
            "needs the 'triton' extra (tritonclient is not installed): "
            "pip install 'mathprobe[triton]'",
        ("triton", "tiny-model", "m"): "pip install 'mathprobe[triton]'",
        ("run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id", "t", "--db",
         "ducklake:postgres:dbname=x host=127.0.0.1", "--data-dir", str(shared_data_dir())):
            "needs the 'lake' extra",
        ("run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id", "t", "--db",
         "ducklake:sqlite:t.sqlite", "--data-dir", str(shared_data_dir())):
            "needs the 'lake' extra (duckdb_extension_ducklake is not installed)",
        ("run", "--benchmark", "wemath", "--model", "openai:gpt-4o-mini", "--run-id", "t",
         "--db", "t.duckdb", "--data-dir", str(shared_data_dir())):
            "needs the 'openai' extra (openai is not installed): pip install 'mathprobe[openai]'",
        ("run", "--benchmark", "wemath", "--model", "anthropic:claude-sonnet-4-5", "--run-id",
         "t", "--db", "t.duckdb", "--data-dir", str(shared_data_dir())):
            "pip install 'mathprobe[anthropic]'",
        ("contamination", "--benchmark", "conceptmath", "--model", "baseline:random", "--db",
         "t.duckdb", "--data-dir", str(shared_data_dir()), "--method", "rouge"):
            "the rouge probe needs the 'rouge' extra",
        ("select-data", "--db", "t.duckdb", "--run", "r", "--corpus", "c.jsonl", "--out",
         "o.jsonl"): "needs the 'select' extra (sklearn is not installed): "
                     "pip install 'mathprobe[select]'",
    }
    for args, expected in cases.items():
        done = installed.mathprobe(*args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (args, done.stderr)
        assert lines[0].startswith("error: ") and expected in lines[0], (args, lines)


def test_commands_from_a_folder_with_the_users_tasks_and_flows(installed):
    data = str(shared_data_dir())
    demo = installed.mathprobe("demo", MATHPROBE_DATA_DIR=data)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-3000:]
    assert "WE-MATH Table 2, strict rule: four-dimensional metric" in demo.stdout
    # the closing hint, pasted into the user's shell (where the venv's bin is on PATH), works
    hint = [line.strip() for line in demo.stdout.splitlines() if " sql --db " in line][0]
    assert hint.startswith("mathprobe sql --db out/demo.duckdb")
    pasted = installed.run("bash", "-c", hint)
    assert pasted.returncode == 0 and "strict" in pasted.stdout, pasted.stderr
    for run_id, temperature in (("a", "0"), ("b", "0.7")):
        ran = installed.mathprobe("run", "--benchmark", "wemath", "--model", "baseline:random",
                                  "--run-id", run_id, "--db", "mine.duckdb", "--limit", "60",
                                  "--temperature", temperature, "--data-dir", data)
        assert ran.returncode == 0, ran.stderr[-3000:]
    html = installed.mathprobe("report", "--db", "mine.duckdb", "--html", "r.html", "--runs",
                               "a,b")                       # the HTML report is an extra's
    assert html.returncode == 2 and html.stderr.strip() == (
        "error: --html needs the 'html' extra (matplotlib is not installed): pip install "
        "'mathprobe[html]'"), html.stderr[-3000:]
    shown = installed.mathprobe("report", "--db", "mine.duckdb", "--run-id", "a")
    assert shown.returncode == 0 and "WE-MATH Table 2" in shown.stdout, shown.stderr[-3000:]
    compared = installed.mathprobe("compare", "--db", "mine.duckdb", "a", "b", "--json")
    assert compared.returncode == 0, compared.stderr[-3000:]
    assert set(json.loads(compared.stdout)["runs"]) == {"a", "b"}


def test_deployments_with_their_defaults_on_a_worker_that_only_installed_the_wheel(installed):
    """`mathprobe deploy up` ran from the installed package: its worker imports mathprobe.flows
    from site-packages; pressing Run with the defaults (the data directory and store set at
    deploy time) completes, for eval/full (a DuckDB file: the core) and, once the worker's
    environment has the `lake` extra (a sweep's cells write one DuckLake store), eval/sweep.
    (The deployment's html_report 'auto' writes no HTML report where the `html` extra is
    missing: the run completes all the same.)"""
    full = installed.prefect("deployment", "run", "eval/full", "--watch", "--watch-timeout",
                             "200", timeout=240)
    assert full.returncode == 0, full.stdout[-3000:] + full.stderr[-3000:]
    assert "Flow run finished successfully in 'Completed: run " in " ".join(full.stdout.split())
    con = duckdb.connect(str(installed.home / "team.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT status, n_items FROM runs").fetchall() == [("completed", 1740)]
    finally:
        con.close()
    added = installed.run(sys.executable, "-m", "pip", "--python",
                          str(installed.venv / "bin" / "python"), "install", "-q", "-c",
                          str(REPO / "constraints.txt"), f"{installed.wheel}[lake]", timeout=600)
    assert added.returncode == 0, added.stderr[-3000:]
    sweep = installed.prefect("deployment", "run", "eval/sweep", "--watch", "--watch-timeout",
                              "200", timeout=240)
    assert sweep.returncode == 0, sweep.stdout[-3000:] + sweep.stderr[-3000:]
    lake = installed.mathprobe("sql", "--db",
                               f"ducklake:sqlite:{installed.home / 'mathprobe-lake.sqlite'}",
                               "SELECT run_id, status FROM runs")
    assert lake.returncode == 0 and "completed" in lake.stdout, lake.stdout + lake.stderr
