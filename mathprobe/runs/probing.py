"""A probe run (a `mathprobe.contract.Probe`: contamination, concept classification, ...): its own run
in the store, asked through the same pipeline as model calls, its per-item scores written to
`probe_scores`, its figures read from the probe's view. Re-running the same run id resumes it."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mathprobe.backends import get_backend, parse_spec
from mathprobe.contract import Benchmark, Probe
from mathprobe.runs import card, progress, runtime
from mathprobe.runs.asking import send
from mathprobe.runs.loading import prepare
from mathprobe.sampling import describe
from mathprobe.store import RunSpec, Store


def probe_run_id(bench: Benchmark, model: str, probe: Probe) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{bench.name}-{model}-{probe.setting}")


def _check_backend(probe: Probe, model: str, kind: str, triton_url: str | None,
                   request_timeout: float | None) -> None:
    """Fail now, before the run is opened, if the probe cannot use this backend (e.g. a chat-only
    API for a probe that needs a completion endpoint or token log-probabilities)."""
    backend = get_backend(model, timeout_s=request_timeout, triton_url=triton_url)
    try:
        probe.wrap(backend, kind)
    finally:
        runtime.run(backend.aclose())


def run_probe(store: Store, bench: Benchmark, probe: Probe, *, model: str, run_id: str,
              data_dir: Path, limit: int | None, concurrency: int | None, retry_failed: bool,
              triton_url: str | None = None, request_timeout: float | None = None,
              flow_run_id: str | None = None
              ) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Ask what the run has not answered yet (and, with `retry_failed`, what failed), score the
    answers; returns the counts by status of this call and the rows of the probe's view.
    Progress goes out as `mathprobe.runs.progress` events (the command line's bar, the Prefect
    log). If the store cannot be written, it stops asking and returns no rows: the caller
    reports it (`check_writes`)."""
    dataset = prepare(store, bench, data_dir)
    chosen = bench.select(dataset.items, limit)
    if limit is not None:
        progress.note(run_id, f"--limit {limit}: " + describe(
            dataset.items, chosen, strata=bench.strata, names=bench.strata_names,
            unit=bench.sample_unit))
    kind, _ = parse_spec(model)
    _check_backend(probe, model, kind, triton_url, request_timeout)
    store.start_run(RunSpec(run_id, bench.name, model, kind, probe.setting, probe.params(kind),
                            flow_run_id), n_items=len(chosen))
    store.set_card(run_id, card.run_facts(
        bench, data_dir, model=model, kind=kind, setting=probe.setting,
        params=probe.params(kind), items=chosen, limit=limit, concurrency=concurrency,
        prompts=card.requests_sha256(probe.requests(chosen, dataset, model, kind)),
        retry_failed=retry_failed, request_timeout=request_timeout, triton_url=triton_url,
        flow_run_id=flow_run_id))
    statuses = store.item_statuses(run_id)
    todo = [it for it in chosen if statuses.get(it.item_id) is None
            or (retry_failed and statuses[it.item_id] == "infra_failed")]
    requests = probe.requests(todo, dataset, model, kind)
    progress.emit("start", run_id, total=len(requests))
    counts = send(store, run_id, model,
                  lambda: probe.wrap(get_backend(model, timeout_s=request_timeout,
                                                 triton_url=triton_url), kind),
                  requests, in_flight=concurrency,
                  on_done=lambda item_id, c: progress.emit("done", run_id, status=c.status,
                                                           item_id=item_id, error=c.error))
    if store.write_failure():
        return counts, []
    if probe.score_name is not None:
        by_id = {it.item_id: it for it in chosen}
        answers = store.query("SELECT item_id, response FROM current_responses WHERE run_id = ? "
                              "AND status = 'ok'", [run_id])
        scores = []
        for item_id, text in answers:
            if item_id in by_id:
                scored = probe.score(by_id[item_id], text, dataset)
                if scored is not None:
                    scores.append((item_id, *scored))
        store.write_probe_scores(run_id, probe.score_name, scores)
    run = store.stored_run(run_id)
    store.finish_run(run_id, "completed" if run["n_infra_failed"] == 0 else "incomplete")
    rows = store.query_dicts(f"SELECT * FROM {probe.view} WHERE run_id = ? ORDER BY ALL", [run_id])
    return counts, rows
