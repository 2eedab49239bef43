"""(c) a sweep fanned out over both workers; (d) the provider's global limit across them."""
from __future__ import annotations

import json
import re

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName
from prefect.settings import PREFECT_API_URL, temporary_settings

from mathprobe.store import open_store
from tests.support import early
from tests.team.sweep import BENCHMARKS, LIMIT, MODELS, run_sweep


@pytest.fixture(scope="module")
def sweep(team, postgres):
    """The sweep's outcome: 60-100 s of worker processes, run in the background while earlier
    tests ran (tests/team/sweep.py); here it is waited for if it is still going."""
    return early.take("sweep", run_sweep)


def _children(team) -> list:
    with temporary_settings({PREFECT_API_URL: team.api_url}):
        with get_client(sync_client=True) as client:
            return client.read_flow_runs(flow_run_filter=FlowRunFilter(
                name=FlowRunFilterName(like_="grid-")))


def test_sweep_runs_every_cell_across_both_workers(team, sweep):
    assert sweep["done"].returncode == 0, sweep["done"].stdout[-3000:] + sweep["done"].stderr[-2000:]
    assert "Completed" in sweep["done"].stdout
    children = _children(team)
    run_ids = sorted(f"grid-{b}-{m.replace(':', '-')}-{s}"
                     for b, s in (("wemath", "plain"), ("conceptmath", "zs")) for m in MODELS)
    # an eval run is named {benchmark}:{model}:{run_id} (issue 11), the sweep's cells too
    assert sorted(c.name for c in children) == sorted(
        f"{r.split('-')[1]}:{c.parameters['model']}:{r}" for r in run_ids
        for c in children if c.parameters["run_id"] == r)
    assert sorted(c.parameters["run_id"] for c in children) == run_ids
    assert all(c.state.is_completed() for c in children)
    # each child was picked up by a worker; both workers took some
    logs = team.worker_logs()
    took = {name: {str(c.id) for c in children if str(c.id) in log} for name, log in logs.items()}
    assert set().union(*took.values()) == {str(c.id) for c in children}
    assert all(took.values()), took

    store = open_store(sweep["lake"])
    try:
        rows = store.query("SELECT run_id, status, n_items = n_ok FROM run_summary ORDER BY run_id")
    finally:
        store.close()
    assert [r[0] for r in rows] == run_ids
    assert all(status == "completed" and complete for _, status, complete in rows)


def test_the_provider_limit_holds_across_workers(team, sweep):
    """Both OpenAI cells (8 requests in flight each, on their own workers) together never had
    more than the limit's 2 requests at the server."""
    assert sweep["done"].returncode == 0
    assert sweep["served"] >= 2 * (LIMIT - 3)          # both OpenAI cells asked their items
    # at most the limit; how close the two cells came to it at once is the machine's timing
    # (a loaded CI machine once saw 1)
    assert 0 < sweep["peak"] <= 2, sweep["peak"]


def test_the_sweep_publishes_each_cells_figures(team, sweep):
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with temporary_settings({PREFECT_API_URL: team.api_url}):
        with get_client(sync_client=True) as client:
            arts = client.read_artifacts(artifact_filter=ArtifactFilter(
                key=ArtifactFilterKey(any_=["sweep-grid"])))
    assert arts
    table = arts[0].data if isinstance(arts[0].data, list) else json.loads(arts[0].data)
    cells = {(r["benchmark"], r["model"]) for r in table}
    assert cells == {(b, m) for b in BENCHMARKS for m in MODELS}
    assert any(r["figure"] == "WE-MATH Table 2, strict rule: four-dimensional metric: Score"
               and re.match(r"\d+\.\d\d$", r["value"])
               for r in table)
    # and the cells compared, with intervals and the differences from the first cell
    with temporary_settings({PREFECT_API_URL: team.api_url}):
        with get_client(sync_client=True) as client:
            (compared,) = client.read_artifacts(artifact_filter=ArtifactFilter(
                key=ArtifactFilterKey(any_=["sweep-grid-compare"])))
    text = compared.data
    assert "## WE-MATH" in text and "## ConceptMath" in text
    assert "### Differences from `grid-wemath-baseline-random-plain`" in text
    assert "`grid-conceptmath-openai-gpt-4o-mini-zs`" in text and "n=" in text
