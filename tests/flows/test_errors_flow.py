"""The `errors` flow on a real (ephemeral) Prefect API: a stored run's wrong answers labelled by a
labeller served over loopback, and the run's report artifact published again with its error
types; a run whose replies are not all readable ends Failed, named for why."""
from __future__ import annotations

import asyncio

import pytest

from mathprobe import registry
from mathprobe.flows.common import call_flow
from mathprobe.flows.errors import errors_flow
from mathprobe.runs import import_official
from mathprobe.store import close_all, open_store
from tests.support.labeller import Labeller, wemath_subset

pytestmark = pytest.mark.usefixtures("prefect_harness")


def latest_artifact(key: str):
    from prefect.client.orchestration import get_client

    async def read():
        async with get_client() as client:
            art = {a.key: a for a in await client.read_latest_artifacts()}[key]
            return art, await client.read_flow_run(art.flow_run_id)
    return asyncio.run(read())


def test_the_flow_labels_and_the_report_artifact_shows_why(fake_openai, data_dir, db, tmp_path):
    from mathprobe.flows.artifacts import artifact_key

    bench = registry.get("wemath")
    wemath_subset(data_dir, tmp_path / "r.json", every=40)
    import_official(open_store(db), bench, data_dir, tmp_path / "r.json", "wf")
    close_all()
    labeller = Labeller(list(bench.error_taxonomy.names), unreadable_every=4)
    fake_openai.reply = labeller
    result = call_flow(errors_flow, run_id="wf", labeller="openai:fake-labeller", db=str(db),
                       data_dir=str(data_dir))
    assert result["asked"] == len(labeller.asked) > 0 and result["label_failed"] > 0
    art, flow_run = latest_artifact(artifact_key("report", "wf", str(db)))
    assert flow_run.state.name.startswith("Incomplete: openai:fake-labeller labelled")
    assert art.type == "markdown" and "## Why it failed: error types" in art.data
    assert "WE-MATH Figure 11: error types across the 67 knowledge concepts" in art.data
    assert "| Knowledge Error | " in art.data and "label_failed" in art.data
    # every reply readable now: asked again only where it was not, and Completed
    labeller.unreadable_every = None
    again = call_flow(errors_flow, run_id="wf", labeller="openai:fake-labeller", db=str(db),
                      data_dir=str(data_dir), retry_failed=True)
    assert again["asked"] == result["label_failed"] and again["label_failed"] == 0
    _, flow_run = latest_artifact(artifact_key("report", "wf", str(db)))
    assert flow_run.state.is_completed()
