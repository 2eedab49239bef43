"""A fourth benchmark added by one package plus one SQL file and nothing else.

tests/plugins/arith is a separate distribution (`mathprobe-arith`): its own tiny data, prompts,
grader, a view and a report. It is installed here with pip, found through the
`mathprobe.benchmarks` entry point, and evaluated end to end through the `eval` flow, `report`
(in another process) and its view; no file of mathprobe's core knows it exists.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import duckdb
import pytest

from mathprobe.tasks import registry
from mathprobe.tasks.store import close_all
from tests.conftest import REPO

PLUGIN = REPO / "tests" / "plugins" / "arith"
RIGHT = {"p00", "p01", "p03", "p04", "p05", "p09"}   # the items the replayed answers get right


@pytest.fixture(scope="module")
def arith(tmp_path_factory):
    """pip-install the plug-in into its own site directory and put that on the path, as an
    installed distribution; uninstall it (from the path and the registry) afterwards."""
    work = tmp_path_factory.mktemp("arith")
    source, site = work / "src", work / "site"
    shutil.copytree(PLUGIN, source)           # pip builds in place: keep the repository clean
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(site),
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    sys.path.insert(0, str(site))
    registry.refresh()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.startswith("mathprobe_arith")]:
            del sys.modules[name]
        registry.refresh()


@pytest.fixture
def arith_data(tmp_path, arith):
    from mathprobe_arith import write_sample_data

    write_sample_data(tmp_path / "data")
    return tmp_path / "data"


def replay_file(path: Path, data_dir: Path) -> Path:
    """Answers to every problem, right for RIGHT, one off otherwise."""
    rows = []
    for line in (data_dir / "arith" / "problems.jsonl").read_text().splitlines():
        p = json.loads(line)
        answer = p["answer"] if p["id"] in RIGHT else p["answer"] + 1
        rows.append({"item_id": p["id"], "response": f"Working... The answer is {answer}."})
    path.write_text(json.dumps(rows))
    return path


def test_the_plugin_is_registered_from_its_own_distribution(arith):
    assert registry.names() == ["arith", "cmmath", "conceptmath", "wemath"]
    bench = registry.get("arith")
    assert type(bench).__module__ == "mathprobe_arith"
    assert Path(sys.modules["mathprobe_arith"].__file__).is_relative_to(arith)
    (ep,) = [e for e in entry_points(group=registry.GROUP) if e.name == "arith"]
    assert ep.dist.name == "mathprobe-arith"
    # its SQL file is applied after the core layer, by the store, like a built-in benchmark's
    from mathprobe.tasks.store.sql import core_files, sql_files
    files = sql_files()
    assert files[:len(core_files())] == core_files()
    assert Path(arith) in files[len(core_files())].parents


@pytest.mark.usefixtures("prefect_harness")
def test_evaluated_end_to_end_through_the_flow_the_report_and_its_view(arith, arith_data,
                                                                        tmp_path, db):
    from mathprobe.flows.eval import eval_flow

    replay = replay_file(tmp_path / "answers.json", arith_data)
    report = eval_flow(benchmark="arith", model=f"replay:{replay}", run_id="toy", db=str(db),
                       data_dir=str(arith_data))
    assert report["run"]["n_ok"] == 12 and report["grader"] == "last_number"
    by_topic = {r["topic"]: (r["n"], r["correct"]) for r in report["topics"]}
    topics = ["addition", "subtraction", "multiplication"]
    want = {t: (4, sum(1 for k in range(12) if k % 3 == i and f"p{k:02d}" in RIGHT))
            for i, t in enumerate(topics)}
    assert by_topic == want == {"addition": (4, 3), "subtraction": (4, 2),
                                "multiplication": (4, 1)}

    # the report command, in another process that finds the plug-in installed on its path
    close_all()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(arith), str(REPO)])}
    out = subprocess.run([sys.executable, "-m", "mathprobe.cli.main", "report", "--run-id", "toy",
                          "--db", str(db)], env=env, capture_output=True, text=True,
                         timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Arith accuracy (%) by topic" in out.stdout and "75.00" in out.stdout
    assert "grader: last_number" in out.stdout

    # its view, queried like any other
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT topic, n, correct FROM arith_topic_accuracy "
                           "WHERE run_id = 'toy' ORDER BY topic").fetchall()
    finally:
        con.close()
    assert rows == [("addition", 4, 3), ("multiplication", 4, 1), ("subtraction", 4, 2)]


def test_the_core_was_not_changed_for_it(arith):
    """By construction: the benchmark lives outside tasks/, flows/ and sql/, and nothing there
    names it."""
    core = [p for d in ("tasks", "flows", "sql") for p in (REPO / d).rglob("*")
            if p.suffix in (".py", ".sql", ".toml")]
    assert core and not [p for p in core if "arith" in p.read_text().lower()]
    assert not (REPO / "tasks" / "benchmarks" / "arith").exists()
    assert "arith" not in (REPO / "pyproject.toml").read_text()


@pytest.mark.usefixtures("prefect_harness")
def test_compared_and_reported_with_the_default_accuracy_table(arith, arith_data, tmp_path, db):
    """A benchmark that names no Comparison still appears in `compare` and the HTML report:
    its accuracy over all items, with an interval, from the core's item_figure_units."""
    from mathprobe.flows.eval import eval_flow
    from mathprobe.tasks.reports import compare, html
    from mathprobe.tasks.store import open_store

    replay = replay_file(tmp_path / "answers.json", arith_data)
    eval_flow(benchmark="arith", model=f"replay:{replay}", run_id="toy", db=str(db),
              data_dir=str(arith_data))
    (b,) = compare.compare(open_store(db), ["toy"]).benchmarks
    assert [t.key for t in b.tables] == ["accuracy"] and b.plots == []
    e = b.figures["toy"]["all"]
    assert (e.value, e.n, e.count) == (0.5, 12, 6) and e.ci_low < 0.5 < e.ci_high
    info = html.write(open_store(db), ["toy"], tmp_path / "toy.html", data_dir=arith_data)
    page = (tmp_path / "toy.html").read_text()
    assert info["items"] == 12 and "Arith" in page and 'data-stat="all"' in page
