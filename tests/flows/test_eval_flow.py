"""The `eval` flow on a real (ephemeral) Prefect API with the offline chance baseline."""
import asyncio
import json

import duckdb
import pytest
from typer.testing import CliRunner

from mathprobe.benchmarks import wemath
from mathprobe.cli.main import app
from mathprobe.errors import MathprobeError
from mathprobe.flows.eval import eval_flow
from mathprobe.store import close_all
from tests.support.report import figure

pytestmark = pytest.mark.usefixtures("prefect_harness")


def rows(db, sql):
    close_all()                     # let a second connection see the file as the flow left it
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_subset_run_fills_the_views(db, data_dir):
    report = eval_flow(benchmark="wemath", model="baseline:random", run_id="sub", db=str(db),
                       data_dir=str(data_dir), limit=60)
    chosen = wemath.select(wemath.load(data_dir).items, 60)
    problems = {it.group_id for it in chosen}
    assert len(chosen) == 60 and report["run"]["n_ok"] == 60
    for rule in ("strict", "loose"):
        n = figure(report, f"score.{rule}")["n"]
        assert n == len(problems) != 525
        assert sum(figure(report, k)["count"] for k in ("ik", "ig", f"cm.{rule}")) <= n
    # every problem answered whole; the note says what the tools that divide by 525 print
    (n525,) = report["notes"]
    assert n525.startswith(f"N = {len(problems)} problems (from the data)")

    # every answer is one of the question's own option letters, and the picks vary
    got = rows(db, "SELECT item_id, extracted FROM verdicts WHERE run_id = 'sub'")
    by_id = wemath.load(data_dir).by_id()
    assert all(letter in by_id[iid].choices for iid, letter in got)
    assert len({letter for _, letter in got}) > 2


def test_rerun_resumes_without_new_calls_and_is_deterministic(db, data_dir):
    first = eval_flow(benchmark="wemath", model="baseline:random", run_id="a", db=str(db),
                      data_dir=str(data_dir), limit=30)
    again = eval_flow(benchmark="wemath", model="baseline:random", run_id="a", db=str(db),
                      data_dir=str(data_dir), limit=30)
    assert first["tables"] == again["tables"]
    assert rows(db, "SELECT count(*), count(DISTINCT item_id) FROM responses "
                    "WHERE run_id = 'a'") == [(30, 30)]
    # a wider limit on the same run only asks the new questions
    eval_flow(benchmark="wemath", model="baseline:random", run_id="a", db=str(db),
              data_dir=str(data_dir), limit=60)
    assert rows(db, "SELECT count(*), count(DISTINCT item_id) FROM responses "
                    "WHERE run_id = 'a'") == [(60, 60)]
    # another run id with the same seed answers the same way
    eval_flow(benchmark="wemath", model="baseline:random", run_id="b", db=str(db),
              data_dir=str(data_dir), limit=30)
    diff = rows(db, """SELECT count(*) FROM verdicts a JOIN verdicts b USING (item_id, grader)
                       WHERE a.run_id = 'a' AND b.run_id = 'b' AND a.extracted <> b.extracted""")
    assert diff == [(0,)]


def test_a_run_id_is_not_reused_for_other_work(db, data_dir):
    eval_flow(benchmark="wemath", model="baseline:random", run_id="x", db=str(db),
              data_dir=str(data_dir), limit=10)
    with pytest.raises(MathprobeError, match="run id 'x' already holds.*setting=plain"):
        eval_flow(benchmark="wemath", model="baseline:random", setting="kca", run_id="x",
                  db=str(db), data_dir=str(data_dir), limit=10)


def test_bad_parameters_fail_before_any_work(db, data_dir):
    with pytest.raises(MathprobeError, match="--setting 'cot'"):
        eval_flow(benchmark="wemath", setting="cot", db=str(db), data_dir=str(data_dir))
    with pytest.raises(MathprobeError, match="unknown backend 'nosuch'"):
        eval_flow(benchmark="wemath", model="nosuch:x", db=str(db), data_dir=str(data_dir))
    with pytest.raises(MathprobeError, match="unknown benchmark"):
        eval_flow(benchmark="mmlu", db=str(db), data_dir=str(data_dir))
    assert not db.exists()


def test_command_line_run_prints_both_tables_and_publishes_an_artifact(db, data_dir):
    result = CliRunner().invoke(app, ["run", "--benchmark", "wemath", "--model",
                                      "baseline:random", "--run-id", "cli", "--db", str(db),
                                      "--data-dir", str(data_dir), "--limit", "40"],
                                terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "WE-MATH Table 1" in result.output and "WE-MATH Table 2, strict rule" in result.output
    assert "WE-MATH Table 2, loose rule" in result.output
    for col in ("S1", "S2", "UCU", "Score", "IK", "IG", "CM", "RM"):
        assert col in result.output

    result = CliRunner().invoke(app, ["report", "--run-id", "cli", "--db", str(db), "--json"])
    report = json.loads(result.output)
    chosen = wemath.select(wemath.load(data_dir).items, 40)
    assert report["run"]["n_items"] == len(chosen) <= 40    # whole problems only

    from prefect.client.orchestration import get_client

    from mathprobe.flows.artifacts import artifact_key

    async def read():
        async with get_client() as client:
            latest = {a.key: a for a in await client.read_latest_artifacts()}
            art = latest[artifact_key("report", "cli", str(db))]
            flow_run = await client.read_flow_run(art.flow_run_id)
            return latest, art, flow_run

    latest, art, flow_run = asyncio.run(read())
    # named after what it evaluates, not a random name
    assert flow_run.name == "wemath:baseline:random:cli"
    assert flow_run.state.name.startswith("Completed: run cli, Score (strict)")
    # the report artifact is Markdown in sections, every metric a percentage with its n
    assert art.type == "markdown"
    text = art.data
    for heading in ("## Run", "## Headline", "## Metrics", "## Weakest concepts", "## Notes",
                    "## HTML report"):
        assert heading in text, heading
    # the benchmark's notes on the run, as the terminal and report --json show them
    assert report["notes"] and all(f"- {note}" in text for note in report["notes"])
    assert "divide by N = 525" in text
    score, ik = figure(report, "score.strict"), figure(report, "ik")
    assert f"| Score | {100 * score['value']:.2f}% |" in text
    assert f"| IK | {100 * ik['value']:.2f}% ({ik['count']:.0f}) |" in text
    assert f"| {score['n']} |" in text
    assert "mathprobe report --html cli.html --run-id cli" in text      # how to make the HTML
    # the key carries the store: the same run id in another DuckDB file has its own artifact
    assert artifact_key("report", "cli", str(db)) != artifact_key("report", "cli", str(db) + "2")
    # progress: created at the start, 100% at the end, on the same flow run
    progress = latest[artifact_key("progress", "cli", str(db))]
    assert progress.type == "progress" and float(progress.data) == 100.0
    assert progress.flow_run_id == art.flow_run_id


def test_run_ids_that_differ_only_in_case_or_punctuation_keep_their_own_artifacts(db, data_dir):
    """Prefect artifact keys are lowercase letters, digits and dashes: `Case_A` and `case-a`
    both became `case-a`, so the second run's report replaced the first's in the UI."""
    from prefect.client.orchestration import get_client

    from mathprobe.flows.artifacts import artifact_key

    for run_id in ("Case_A", "case-a"):
        done = CliRunner().invoke(app, ["run", "--benchmark", "wemath", "--model",
                                        "baseline:random", "--run-id", run_id, "--db", str(db),
                                        "--data-dir", str(data_dir), "--limit", "6"])
        assert done.exit_code == 0, done.output

    async def read():
        async with get_client() as client:
            latest = {a.key: a for a in await client.read_latest_artifacts()}
            return {r: latest.get(artifact_key("report", r, str(db))) for r in ("Case_A", "case-a")}

    arts = asyncio.run(read())
    assert all(arts.values()) and arts["Case_A"].key != arts["case-a"].key
    assert arts["Case_A"].flow_run_id != arts["case-a"].flow_run_id
    for run_id, art in arts.items():
        assert f"--run-id {run_id}" in art.data                  # each its own run's report
