"""A backend kind added from outside mathprobe, as docs/adding-a-backend.md says.

tests/plugins/abacus is a separate distribution (`mathprobe-abacus`): one module holding its
client and its BackendKind. It is installed here with pip, found through the
`mathprobe.backends` entry point, and runs a real evaluation from the command line (in another
process, on the plug-in benchmark tests/plugins/arith): its answers are stored and graded; the
command line's help, its checks and its errors name it; no file of mathprobe's core knows it.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import duckdb
import pytest

from mathprobe import registry
from mathprobe.backends import provider_limit
from mathprobe.backends import registry as backends
from mathprobe.errors import MathprobeError
from mathprobe.runs import preflight
from tests.conftest import REPO
from tests.support.cli import cli_env, mathprobe

PLUGINS = REPO / "tests" / "plugins"
BUILT_IN = ["baseline", "openai", "anthropic", "triton", "replay"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """pip-install the backend plug-in (and the benchmark it is tried on) into a site directory
    of their own, put on the path as installed distributions; gone again afterwards."""
    work = tmp_path_factory.mktemp("plugins")
    site = work / "site"
    for name in ("abacus", "arith"):
        source = work / name
        shutil.copytree(PLUGINS / name, source)     # pip builds in place: keep the checkout clean
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                               "--no-build-isolation", "--no-index", "--target", str(site),
                               str(source)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    sys.path.insert(0, str(site))
    backends.refresh(), registry.refresh()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules
                     if m.startswith(("mathprobe_abacus", "mathprobe_arith"))]:
            del sys.modules[name]
        backends.refresh(), registry.refresh()


def plugin_env(site: Path, **extra: str) -> dict[str, str]:
    env = cli_env(**extra)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO)])
    return env


def test_registered_from_its_own_distribution(site):
    assert backends.names() == BUILT_IN + ["abacus"]
    kind = backends.find("abacus")
    assert (kind.key_env, kind.names, kind.network) == ("ABACUS_API_KEY", ("adder", "calculator"),
                                                        False)
    assert provider_limit("abacus:adder") == 8            # its own cap, from its BackendKind
    assert Path(sys.modules["mathprobe_abacus"].__file__).is_relative_to(site)
    (ep,) = [e for e in entry_points(group=backends.GROUP) if e.name == "abacus"]
    assert ep.dist.name == "mathprobe-abacus"


def test_the_checks_and_errors_name_it_from_the_registry(site, monkeypatch):
    # an unknown kind names every known one, the plug-in's included
    with pytest.raises(MathprobeError) as err:
        preflight.model("abacas:adder")
    assert str(err.value) == ("--model 'abacas:adder': unknown backend 'abacas' (available: "
                              "baseline:random, openai:MODEL, anthropic:MODEL, triton:MODEL, "
                              "replay:FILE, abacus:adder|calculator)")
    with pytest.raises(MathprobeError, match=r"'abacus:slide-rule': abacus has abacus:adder, "
                                             r"abacus:calculator$"):
        preflight.model("abacus:slide-rule")
    # (whether its key can be had is asked of Prefect once it is imported, as here: the command
    # line's check without Prefect is in the next test)
    monkeypatch.setenv("ABACUS_API_KEY", "abacus-key-123456")
    assert preflight.model("abacus:adder") == ("abacus", "adder")


@pytest.mark.usefixtures("prefect_harness")
def test_a_command_line_run_stores_and_grades_its_answers(site, tmp_path):
    from mathprobe_arith import write_sample_data

    data = tmp_path / "data"
    write_sample_data(data)
    db = tmp_path / "store.duckdb"
    run = ["run", "--benchmark", "arith", "--model", "abacus:adder", "--run-id", "abacus",
           "--db", str(db), "--data-dir", str(data)]

    # the command's help lists the kind; without its key the run stops before it starts
    helped = mathprobe("run", "--help", env=plugin_env(site), timeout=120)
    assert helped.returncode == 0
    assert "abacus:adder|calculator (a toy that does sums)" in " ".join(helped.stdout.split())
    # (no Prefect server, and a Prefect home with no Secret block: the check that needs no
    # Prefect can tell the key is nowhere)
    offline = {k: v for k, v in plugin_env(site).items()
               if k not in ("ABACUS_API_KEY", "PREFECT_API_URL")}
    offline["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    nokey = mathprobe(*run, env=offline, timeout=120)
    assert nokey.returncode == 2 and ("error: --model 'abacus:adder': no API key: set "
                                      "ABACUS_API_KEY, or create a Prefect Secret block named "
                                      "'abacus-api-key'") in nokey.stderr
    assert not db.exists()
    unknown = mathprobe(*run[:4], "abacas:adder", *run[5:], env=offline, timeout=120)
    assert unknown.returncode == 2 and "abacus:adder|calculator)" in unknown.stderr

    key = "abacus-key-123456"
    done = mathprobe(*run, env=plugin_env(site, ABACUS_API_KEY=key), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]

    problems = [json.loads(line) for line in (data / "arith" / "problems.jsonl").open()]
    con = duckdb.connect(str(db), read_only=True)
    try:
        run_row = con.execute("SELECT backend, model, status FROM runs "
                              "WHERE run_id = 'abacus'").fetchall()
        stored = dict(con.execute("SELECT item_id, response FROM responses WHERE run_id = "
                                  "'abacus' AND status = 'ok'").fetchall())
        graded = dict(con.execute("SELECT item_id, correct FROM verdicts "
                                  "WHERE run_id = 'abacus'").fetchall())
        everything = " ".join(str(r) for t in ("responses", "runs", "run_data")
                              for r in con.execute(f"SELECT * FROM {t}").fetchall())
    finally:
        con.close()
    assert run_row == [("abacus", "abacus:adder", "completed")]
    assert set(stored) == set(graded) == {p["id"] for p in problems}
    for p in problems:
        a, op, b = re.search(r"(\d+) ([-+*]) (\d+)", p["question"]).groups()
        if op in "+-":      # the adder works these out, and they are graded right
            assert stored[p["id"]].endswith(f"The answer is {p['answer']}.") and graded[p["id"]]
        else:               # a product it cannot do: an answer, graded wrong, not a failure
            assert stored[p["id"]] == "I cannot work that out." and not graded[p["id"]]
    assert key not in everything
    assert "Arith accuracy by topic (%)" in done.stdout


def test_the_core_was_not_changed_for_it(site):
    core = [p for d in ("mathprobe", "tasks", "flows", "sql") for p in (REPO / d).rglob("*")
            if p.suffix in (".py", ".sql", ".toml")]
    assert core and not [p for p in core if "abacus" in p.read_text().lower()]
    assert "abacus" not in (REPO / "pyproject.toml").read_text()
