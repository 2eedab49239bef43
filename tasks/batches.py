"""The `respond-batches` task (--batch): a run's questions asked through its model's batch API
and their answers stored (mathprobe/runs/batching.py), and how a flow run shows that it waits
on the service: paused.

While a run waits for its batches, its flow run is Paused (state name `AwaitingBatch`, the
message saying what it waits for and how to resume). It is Prefect's blocking pause: this
process keeps polling the batches and stores their results; when they end it resumes the flow
run itself (Running), which goes on to grading. Resuming it from the UI early changes nothing
(it pauses again: the answers are not back); cancelling it stops the waiting, leaving the
batches at the service for the same command to collect later. A killed process leaves the
flow run Paused; the next start of the run marks it Crashed (flows/common.py) and waits on in
a flow run of its own. docs/batches.md says why this and not a suspended or rescheduled run."""
from __future__ import annotations

import uuid

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from mathprobe import registry
from mathprobe.registry import resolve_data_dir
from mathprobe.runs import LazyRequests, progress
from mathprobe.runs.batching import BatchRun
from mathprobe.runs.config import RunConfig
from mathprobe.runs.samples import Ask
from mathprobe.store import open_store
from mathprobe.tasks.run_log import current_flow_run_id

PAUSE_S = 25 * 3600        # a batch ends within 24 h; a pause past this is failed by Prefect
STATE_NAME = "AwaitingBatch"


class FlowRunPaused:
    """`mathprobe.runs.batching.Waiting` for a flow run: Paused while the run waits."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.flow_run_id = current_flow_run_id()
        self.message = ""
        self.paused = False

    def _set(self, state) -> bool:
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.responses import SetStateStatus

        assert self.flow_run_id is not None      # begin() pauses only inside a flow run
        with get_client(sync_client=True) as client:
            result = client.set_flow_run_state(self.flow_run_id, state)
        return result.status == SetStateStatus.ACCEPT

    def begin(self, message: str) -> None:
        from prefect.states import Paused

        self.message = message
        if self.flow_run_id is None or self.paused:
            return
        self.paused = self._set(Paused(timeout_seconds=PAUSE_S, pause_key=uuid.uuid4().hex,
                                       reschedule=False, name=STATE_NAME, message=message))
        if self.paused:
            get_run_logger().info("flow run paused: %s", message)

    def end(self) -> None:
        from prefect.states import Running

        if self.paused:
            self.paused = False
            self._set(Running(message="the batches ended; their answers are stored"))

    def stopped(self) -> str | None:
        """The flow run cancelled or ended meanwhile: why; resumed from the UI while the
        batches are still open: paused again (the answers are not back)."""
        from prefect.client.orchestration import get_client

        if self.flow_run_id is None or not self.paused:
            return None
        with get_client(sync_client=True) as client:
            state = client.read_flow_run(uuid.UUID(self.flow_run_id)).state
        if state is None or state.is_paused():
            return None
        if state.is_running():
            progress.note(self.run_id, "the flow run was resumed while its batches are still "
                                       "open: paused again until they end")
            self.paused = False
            self.begin(self.message)
            return None
        return f"its flow run is {state.name}"


@task(name="respond-batches", cache_policy=NO_CACHE)
def respond_batches(cfg: RunConfig, asks: list[Ask]) -> dict[str, int]:
    """Ask the run's questions ((item id, sample) pairs) through the model's batch API: submit
    those in no batch yet (each batch stored before it is waited for), wait for every open
    batch of the run (the flow run paused), store the answers as they are read."""
    bench = registry.get(cfg.benchmark)
    store = open_store(cfg.db)
    by_id = bench.load(resolve_data_dir(cfg.data_dir)).by_id()
    counts = BatchRun(
        store, cfg.run_id, cfg.model, cfg.params,
        requests_for=lambda part: LazyRequests(bench, [by_id[i] for i, _ in part], cfg.model,
                                               cfg.setting, cfg.params,
                                               samples=[s for _, s in part]),
        waiting=FlowRunPaused(cfg.run_id), timeout_s=cfg.request_timeout,
        on_done=lambda item_id, c: progress.emit("done", cfg.run_id, status=c.status,
                                                 item_id=item_id, error=c.error),
    ).ask(asks)
    get_run_logger().info("batches of %d question(s): %s", len(asks),
                          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none")
    return counts
