"""Many runs at once into one DuckLake store, and reading it while they write."""
from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from mathprobe.cli.main import app
from mathprobe.errors import MathprobeError
from mathprobe.store import close_all, open_store
from tests.support import early
from tests.team.writers import LIMIT, run_writers

# The views a user reads WE-MATH through, compared between the lake and a file; ORDER BY ALL
# makes the comparison independent of row order. (item_verdicts also carries response ids,
# which are the store's own: compared without them.)
VIEWS = {
    "wemath_four_dimensional": "*", "wemath_step_accuracy": "*",
    "wemath_category_accuracy": "*", "wemath_concept_accuracy": "*",
    "wemath_problem_verdicts": "*", "wemath_item_verdicts": "*",
    "item_verdicts": "* EXCLUDE (response_id)", "run_summary": "*",
}


def view_rows(db: str) -> dict[str, list[tuple]]:
    store = open_store(db)
    try:
        return {v: store.query(f"SELECT {cols} FROM {v} ORDER BY ALL") for v, cols in VIEWS.items()}
    finally:
        store.close()


@pytest.fixture(scope="module")
def writers(team, postgres):
    """The four writers' outcome: run in the background while earlier tests ran
    (tests/team/writers.py); here it is waited for if it is still going."""
    return early.take("writers", run_writers)


def test_four_writers_into_one_lake_store_each_item_exactly_once(team, writers):
    """(a) four `mathprobe run` processes into one PostgreSQL-catalogued lake at once, two of
    them on the same run: every item stored once, and the views equal the same runs in a file.
    (The processes ran in the background, tests/team/writers.py: 20-50 s, four processes
    starting Prefect at once on 2 cores being the point.)"""
    lake = writers["lake"]
    for code, out, errs in writers["done"]:
        assert code == 0, errs[-3000:]
        assert json.loads(out)["run"]["n_ok"] == LIMIT

    store = open_store(lake)
    try:
        per_run = store.query("SELECT run_id, count(*), count(DISTINCT item_id) FROM responses "
                              "GROUP BY run_id ORDER BY run_id")
        assert per_run == [("first", 60, 60), ("second", 60, 60), ("shared", 60, 60)]
        assert store.query("SELECT count(DISTINCT response_id), count(*) FROM responses") == [(180, 180)]
        assert store.query("SELECT count(*), count(DISTINCT (run_id, item_id, grader)) "
                           "FROM verdicts") == [(180, 180)]
        assert store.query("SELECT count(*) FROM items WHERE benchmark = 'wemath'") == [(1740,)]
    finally:
        store.close()

    same = str(writers["work"] / "same.duckdb")
    copied = team.mathprobe("store", "copy", lake, same)
    assert copied.returncode == 0, copied.stderr
    lake_views, file_views = view_rows(lake), view_rows(same)
    assert lake_views["wemath_four_dimensional"]              # not comparing nothing
    for view in VIEWS:
        assert lake_views[view] == file_views[view], view
    # the chance baseline answers an item the same way in every run
    four = {r[0]: r[2:] for r in lake_views["wemath_four_dimensional"]}
    assert four["first"] == four["second"] == four["shared"]


def test_report_and_sql_read_while_a_run_writes(team, tmp_path):
    """(b) `report` and `sql` on a SQLite-catalogued lake while a run writes to it.
    The service stalls after 20 answers (the double's `hold`) until the reader, polling
    `report` in this process, has seen the run half-written; then the run completes. (A run
    merely slowed down raced the reader on a busy machine: CI once never caught it mid-way.)"""
    lake = f"ducklake:sqlite:{tmp_path / 'lake.sqlite'}"
    team.api.hold(20)
    try:
        writer = team.popen("run", "--benchmark", "wemath", "--model", "openai:gpt-4o-mini",
                            "--run-id", "live", "--db", lake, "--limit", "60",
                            "--concurrency", "2")
        partial = None
        deadline = time.monotonic() + 90
        while partial is None and time.monotonic() < deadline and writer.poll() is None:
            got = CliRunner().invoke(app, ["report", "--db", lake, "--run-id", "live", "--json"])
            if got.exit_code == 0:
                report = json.loads(got.stdout)
                if 0 < report["run"]["n_responses"] < 60:
                    partial = report
            else:                           # only "not created yet" is acceptable
                assert isinstance(got.exception, MathprobeError), got.output
                assert "no run 'live'" in str(got.exception) or "no such" in str(got.exception)
            time.sleep(0.3)
        assert partial is not None, "never saw the run half-written"
    # (the run has stored some answers and not all: the reader saw a consistent snapshot)
        assert partial["run"]["status"] == "running"
        counted = CliRunner().invoke(app, ["sql", "--db", lake, "SELECT count(*) FROM responses"])
        assert counted.exit_code == 0, counted.output
        team.api.release()
        out, errs = writer.communicate(timeout=120)
        assert writer.returncode == 0, errs[-3000:]
    finally:
        team.api.release()
        team.api.hold_after = None
    close_all()                   # the test's own reader: reopen to see the final state
    final = json.loads(CliRunner().invoke(app, ["report", "--db", lake, "--run-id", "live",
                                                "--json"]).stdout)
    assert final["run"]["status"] == "completed" and final["run"]["n_ok"] == 60
