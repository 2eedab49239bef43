"""The `errors` flow: why a stored run's answers are wrong, in the Prefect UI. It labels the run's
wrong answers with its benchmark's error taxonomy (the `label` task: rules, then a labeller
model, every call cached by content; what `mathprobe errors RUN --judge BACKEND:NAME` does in
its own process) and publishes the run's report artifact again, now with its error types
(section "Why it failed"), under the key of the run's report, so the run's artifact shows them.
"""
from __future__ import annotations

from typing import Any

from prefect import flow

from mathprobe import reports
from mathprobe.errors import Exit
from mathprobe.flows.artifacts import artifact_key
from mathprobe.flows.common import fail_cleanly, not_completed
from mathprobe.runs import labelling
from mathprobe.runs.asking import check_writes
from mathprobe.tasks.label import label_task


@flow(name="errors", log_prints=True)
@fail_cleanly
def errors_flow(run_id: str, labeller: str, db: str = "mathprobe.duckdb",
                data_dir: str | None = None, grader: str | None = None,
                sample: int | None = None, retry_failed: bool = False, concurrency: int = 16,
                request_timeout: float | None = None, triton_url: str | None = None,
                max_cost: float | None = None) -> dict[str, Any]:
    """Label the wrong answers of stored run `run_id` with `labeller` (BACKEND:NAME) and publish
    its report artifact with the error types.

    Args:
        run_id: The stored run whose wrong answers to label.
        labeller: BACKEND:NAME of the labeller model.
        db: The store (a DuckDB file or a DuckLake store).
        data_dir: Folder holding one folder per benchmark (default: $MATHPROBE_DATA_DIR).
        grader: Whose wrong answers (empty: the run's report grader).
        sample: Label a seeded stratified sample of about N wrong answers (empty: all).
        retry_failed: Ask again where a reply had no readable type or a call failed.
        concurrency: Calls in flight.
        request_timeout: Seconds per attempt.
        triton_url: HOST:PORT of the Triton gRPC endpoint, for triton: labellers.
        max_cost: Stop asking once the labeller's calls cost this much (USD).
    """
    from prefect.artifacts import create_markdown_artifact

    from mathprobe.reports import markdown

    checked = labelling.check(db, run_id, labeller, data_dir=data_dir, grader=grader,
                              sample=sample, concurrency=concurrency,
                              request_timeout=request_timeout, max_cost=max_cost)
    result = label_task(db, run_id, labeller, data_dir=data_dir, grader=grader, sample=sample,
                        retry_failed=retry_failed, concurrency=concurrency,
                        request_timeout=request_timeout, triton_url=triton_url,
                        max_cost=max_cost)
    check_writes(checked.store)
    report = reports.build(checked.store, run_id)
    text, _ = markdown.run_markdown(checked.store, report, html_hint=(
        f"mathprobe report --html {run_id}.html --run-id {run_id} --db {db}"))
    create_markdown_artifact(key=artifact_key("report", run_id, db), markdown=text,
                             description=f"mathprobe report of run {run_id}, with its error "
                                         f"types by {labeller}")
    if result["label_failed"] or result["infra_failed"] or result["not_asked"]:
        name = (f"Incomplete: {labeller} labelled {result['labelled']} of {result['chosen']} "
                f"wrong answers of {run_id} ({result['label_failed']} label_failed, "
                f"{result['infra_failed']} failed calls, {result['not_asked']} not asked)")
        return not_completed(name, name + "; ask them again with retry_failed", result,
                             Exit.STOPPED_BUDGET if result["not_asked"] else Exit.INCOMPLETE)
    return result
