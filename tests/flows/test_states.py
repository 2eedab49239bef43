"""States that tell the truth: a run whose calls failed ends its flow run Failed, named
'Incomplete: ...' with its counts and first reason (never a green Completed); a budget stop
'Stopped: ...'; a user error 'Failed: <the one line>' with that line as the state's message and
no traceback at ERROR in the run's logs. Checked on the Prefect API's own record of the runs."""
from __future__ import annotations

import asyncio

import pytest

from mathprobe.benchmarks import wemath
from mathprobe.errors import MathprobeError, RunNotCompleted
from mathprobe.flows.artifacts import artifact_key
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow
from tests.support.fake_api import FakeAPI

pytestmark = pytest.mark.usefixtures("prefect_harness")


@pytest.fixture
def api(monkeypatch):
    server = FakeAPI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "1")
    yield server
    server.stop()


def flow_run_of(state):
    """The flow run, as the Prefect API holds it, and its logs (level, message, traceback)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=10)   # the run's logs go to the API in batches

    async def read():
        async with get_client() as client:
            run = await client.read_flow_run(state.state_details.flow_run_id)
            logs = await client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(
                any_=[run.id])))
            return run, logs
    return asyncio.run(read())


def test_a_run_whose_calls_all_failed_is_not_completed(api, db, data_dir):
    api.always[""] = "401"                          # every request: refused for good
    state = eval_flow(benchmark="wemath", model="openai:m", run_id="all-failed", db=str(db),
                      data_dir=str(data_dir), limit=6, return_state=True)
    n = len(wemath.select(wemath.load(data_dir).items, 6))
    run, _ = flow_run_of(state)
    assert run.state.type.value == "FAILED" and not run.state.is_completed()
    assert run.state.name.startswith(f"Incomplete: run all-failed, {n} of {n} calls failed "
                                     f"({n} x HTTP 401: "), run.state.name
    assert "--retry-failed" in run.state.message
    # calling the flow raises, carrying the report; the command line's helper returns it
    with pytest.raises(RunNotCompleted) as raised:
        eval_flow(benchmark="wemath", model="openai:m", run_id="all-failed", db=str(db),
                  data_dir=str(data_dir), limit=6)
    assert raised.value.exit_code == 3
    report = call_flow(eval_flow, benchmark="wemath", model="openai:m", run_id="all-failed",
                       db=str(db), data_dir=str(data_dir), limit=6)
    assert report["run"]["status"] == "incomplete" and report["run"]["n_infra_failed"] == n


def test_a_complete_run_is_completed_with_its_headline(db, data_dir):
    """... and a run id that is not an artifact key as given says how it is keyed."""
    state = eval_flow(benchmark="wemath", run_id="Fine_1", db=str(db), data_dir=str(data_dir),
                      limit=6, return_state=True)
    run, logs = flow_run_of(state)
    assert run.state.is_completed() and run.state.name.startswith("Completed: run Fine_1, ")
    key = artifact_key("report", "Fine_1", str(db))
    assert key.startswith("report-fine-1-") and key != artifact_key("report", "fine-1", str(db))
    assert any("run id 'Fine_1' is not a Prefect artifact key as it stands" in log.message
               and key in log.message for log in logs)


def test_a_user_error_is_the_failed_states_name_and_message(db, data_dir, tmp_path):
    nowhere = tmp_path / "nowhere"
    state = eval_flow(benchmark="wemath", db=str(db), data_dir=str(nowhere),
                      return_state=True)
    line = f"data directory {nowhere} (from --data-dir) does not exist"
    run, logs = flow_run_of(state)
    assert run.state.type.value == "FAILED"
    assert run.state.name == f"Failed: {line}" and run.state.message == line
    assert not [log for log in logs if log.level >= 40], [log.message for log in logs]
    assert not any("Traceback" in log.message for log in logs)
    with pytest.raises(MathprobeError, match="does not exist"):
        eval_flow(benchmark="wemath", db=str(db), data_dir=str(nowhere))
