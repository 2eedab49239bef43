"""A fourth benchmark added by one package plus one SQL file and nothing else.

tests/plugins/arith is a separate distribution (`mathprobe-arith`): its own tiny data, prompts,
grader, views and its figures declared once (`FIGURES`, mathprobe.figures). It is installed here with
pip, found through the `mathprobe.benchmarks` entry point, and evaluated end to end through the
`eval` flow, `report` (in another process) and its view; every output shows its declared figures
(the terminal report, `report --json`, `compare --json`, the eval flow's Markdown artifact, the
HTML report and its plot); no file of mathprobe's core knows it exists.
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

from mathprobe import registry
from mathprobe.store import close_all
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
    from mathprobe.store.sql import core_files, sql_files
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
    (topics,) = [t for t in report["tables"] if t["key"] == "topics"]
    by_topic = {f["label"]: (f["n"], f["count"]) for f in topics["figures"]}
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
    # its declared tables, drawn for the terminal: figure, value (count), 95% interval, n
    assert "Arith accuracy by topic (%)" in out.stdout and "grader: last_number" in out.stdout
    addition = row_of(out.stdout, "addition")
    assert addition[1:3] == ["75.00", "(3)"] and addition[-1] == "4"

    # its view, queried like any other
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT topic, n, correct FROM arith_topic_accuracy "
                           "WHERE run_id = 'toy' ORDER BY topic").fetchall()
    finally:
        con.close()
    assert rows == [("addition", 4, 3), ("multiplication", 4, 1), ("subtraction", 4, 2)]


def test_the_core_was_not_changed_for_it(arith):
    """By construction: the benchmark lives outside mathprobe/, tasks/, flows/ and sql/, and nothing there
    names it."""
    core = [p for d in ("mathprobe", "tasks", "flows", "sql") for p in (REPO / d).rglob("*")
            if p.suffix in (".py", ".sql", ".toml")]
    assert core and not [p for p in core if "arith" in p.read_text().lower()]
    assert not (REPO / "mathprobe" / "benchmarks" / "arith").exists()
    assert "arith" not in (REPO / "pyproject.toml").read_text()


def row_of(text: str, label: str) -> list[str]:
    """The words of the terminal table row labelled `label`, without the table's rules."""
    line = next(line for line in text.splitlines() if label in line)
    return [w for w in line.split() if w not in ("│", "┃", "|")]


def arith_topic_accuracy(db) -> dict[str, tuple[float, int, int]]:
    """topic -> (accuracy, correct, n) as the plug-in's own view computes them."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: (a, c, n) for t, a, c, n in con.execute(
            "SELECT topic, accuracy, correct, n FROM arith_topic_accuracy WHERE run_id = 'toy'"
        ).fetchall()}
    finally:
        con.close()


@pytest.mark.usefixtures("prefect_harness")
def test_every_output_draws_its_one_declaration(arith, arith_data, tmp_path, db):
    """The plug-in writes no report, no comparison and no Markdown of its own: one `Figures`
    declaration, and the terminal report, `report --json`, `compare --json`, the Prefect
    artifact's Markdown and the HTML report (tables, plot, glossary) all show its figures, with
    the values its own view computes."""
    import asyncio

    from mathprobe_arith import Arith
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from prefect.client.orchestration import get_client
    from rich.console import Console

    from mathprobe.flows.artifacts import artifact_key
    from mathprobe.flows.eval import eval_flow
    from mathprobe.reports import compare, compare_render, html, plots, summary
    from mathprobe.store import open_store

    assert "comparison" not in vars(Arith)                          # nothing but FIGURES
    replay = replay_file(tmp_path / "answers.json", arith_data)
    eval_flow(benchmark="arith", model=f"replay:{replay}", run_id="toy", db=str(db),
              data_dir=str(arith_data))
    close_all()
    want = arith_topic_accuracy(db)
    assert want == {"addition": (0.75, 3, 4), "subtraction": (0.5, 2, 4),
                    "multiplication": (0.25, 1, 4)}
    store = open_store(db, read_only=True)

    # terminal: the declared tables (not the detail ones), each figure with its interval and n
    report = summary.build(store, "toy")
    console = Console(width=100, record=True, file=open(os.devnull, "w"))
    console.print(summary.render(report, 100))
    text = console.export_text()
    assert "Arith accuracy (%)" in text and "Arith accuracy by topic (%)" in text
    for topic, (acc, right, n) in want.items():
        row = row_of(text, topic)
        assert row[1:3] == [f"{100 * acc:.2f}", f"({right})"] and row[-1] == str(n), row
        assert row[3].startswith("[") and row[4].endswith("]")           # its 95% interval

    # JSON: `report --json` prints this build; `compare --json` the comparison's
    figs = {f["key"]: f for t in json.loads(json.dumps(report, default=str))["tables"]
            for f in t["figures"]}
    assert {k for k in figs} == {"all", *(f"topic:{t}" for t in want)}
    for topic, (acc, right, n) in want.items():
        f = figs[f"topic:{topic}"]
        assert (f["value"], f["count"], f["n"]) == (acc, right, n)
        assert f["ci_low"] < acc < f["ci_high"] or acc in (f["ci_low"], f["ci_high"])
    result = compare.compare(store, ["toy"])
    shown = compare_render.to_json(result)["runs"]["toy"]["figures"]
    assert {k: (v["value"], v["n"]) for k, v in shown.items()} == {
        k: (f["value"], f["n"]) for k, f in figs.items()}
    assert shown["topic:addition"]["table"] == "topics"

    # Markdown: the eval flow's Prefect artifact, from the same declaration
    async def read():
        async with get_client() as client:
            latest = {a.key: a for a in await client.read_latest_artifacts()}
            return latest[artifact_key("report", "toy", str(db))]
    art = asyncio.run(read())
    assert art.type == "markdown"
    md = art.data
    assert "# Arith run `toy`" in md and "**Arith accuracy: 50.00% [" in md
    assert "### Arith accuracy by topic" in md and "## Weakest concepts" in md
    for topic, (acc, right, _n) in want.items():
        assert f"| {topic} | {100 * acc:.2f}% ({right}) | " in md and md.count(f"| {topic} |") == 2

    # HTML: its tables (one cell per figure and run), its glossary and its declared plot
    info = html.write(store, ["toy"], tmp_path / "toy.html", data_dir=arith_data)
    page = (tmp_path / "toy.html").read_text()
    assert info["items"] == 12 and info["plots"] == 1 and 'data-plot="arith-topics"' in page
    for topic, (acc, right, _) in want.items():
        assert f'data-stat="topic:{topic}"' in page and f"{100 * acc:.2f} ({right})" in page
    assert "Right answers / problems answered" in page                 # its glossary term
    (b,) = result.benchmarks
    (plot,) = b.plots
    assert [k for _, k in plot.series] == ["all", *(f"topic:{t}" for t in sorted(want))]
    (part,) = plots.draw(plot, ["toy"], {"toy": {k: e.as_dict() for k, e in
                                                 b.figures["toy"].items()}})
    FigureCanvasAgg(part.fig).draw()
    heights = sorted(round(p.get_height(), 6) for ax in part.fig.axes for p in ax.patches
                     if p.get_height() > 0)
    assert heights == sorted(round(100 * v, 6) for v in (0.5, *(a for a, _, _ in want.values())))


@pytest.mark.usefixtures("prefect_harness")
def test_its_stored_figure_comes_from_one_line(arith, arith_data, tmp_path, db):
    """arith.sql declares its figure units stored with one line after their macro
    (`-- @stored arith_figure_units`): the store makes the table (the macro's columns), its
    comments (copied from the view's) and the view; once the run has finished, the view's rows
    are the stored ones, equal to what the macro computes live."""
    from mathprobe.flows.eval import eval_flow

    replay = replay_file(tmp_path / "answers.json", arith_data)
    eval_flow(benchmark="arith", model=f"replay:{replay}", run_id="toy", db=str(db),
              data_dir=str(arith_data))
    close_all()
    con = duckdb.connect(str(db))
    try:
        q = "SELECT * FROM {} WHERE run_id = 'toy' ORDER BY ALL"
        stored = con.execute(q.format("arith_figure_units_stored")).fetchall()
        assert len(stored) == 24                                   # 12 problems x 2 cells
        assert con.execute(q.format("arith_figure_units")).fetchall() == stored
        assert con.execute(q.format("arith_figure_units_of('run_data')")).fetchall() == stored
        assert con.execute("FROM stored_runs").fetchall() == [("toy",)]
        assert con.execute(q.format("arith_figure_units_of('live_run_spans')")).fetchall() == []
        cols = con.execute("SELECT table_name, column_name, data_type, comment FROM "
                           "duckdb_columns() WHERE table_name LIKE 'arith_figure_units%' "
                           "ORDER BY table_name, column_index").fetchall()
        view = [c[1:] for c in cols if c[0] == "arith_figure_units"]
        assert [c[1:] for c in cols if c[0] == "arith_figure_units_stored"] == view
        assert [c[:2] for c in view] == [
            ("run_id", "VARCHAR"), ("grader", "VARCHAR"), ("unit", "VARCHAR"),
            ("item", "VARCHAR"), ("cell", "VARCHAR"), ("num", "DOUBLE"), ("den", "DOUBLE")]
        assert all(c[2] for c in view) and view[5][2] == "1 for a right answer, else 0."
        (comment,), = con.execute("SELECT comment FROM duckdb_tables() "
                                  "WHERE table_name = 'arith_figure_units_stored'").fetchall()
        assert "The rows of arith_figure_units stored per run" in comment
        # the view reads the table: a stored row changed by hand shows through it
        con.execute("UPDATE arith_figure_units_stored SET num = 7 WHERE run_id = 'toy' "
                    "AND unit = 'p02' AND cell = 'all'")
        assert con.execute("SELECT num FROM arith_figure_units WHERE run_id = 'toy' AND "
                           "unit = 'p02' AND cell = 'all'").fetchall() == [(7.0,)]
    finally:
        con.close()
