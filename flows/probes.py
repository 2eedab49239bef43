"""The `contamination` and `classify` flows (ConceptMath, paper Sec. 4.3).

`contamination`: Rouge-L of the model's continuation of each question's first half against the
true second half (any generating backend), and MIN-K% of the question's token log-probabilities
(backends that score text: `triton:`, or `openai:` on a server returning prompt log-probs).
`classify`: the model ranks its system's level-2 concepts for each question; API models are
asked for a ranking, open models (`triton:`) rank by the log-likelihood of each concept.
Each probe is a run in the store; re-running the same run id resumes it.
"""
from __future__ import annotations

import re
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from tasks import pipeline, probes, runtime
from tasks.backends import get_backend, parse_spec
from tasks.benchmarks import get_adapter, resolve_data_dir
from tasks.errors import MathprobeError
from tasks.store import RunSpec, open_store

VIEWS = {"rouge": "contamination_rouge", "mink": "contamination_mink",
         "classify": "conceptmath_classification"}


def probe_run_id(benchmark: str, model: str, probe: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{benchmark}-{model}-{probes.SETTINGS[probe]}")


@task(name="probe", cache_policy=NO_CACHE)
def probe_task(probe: str, model: str, run_id: str, db: str, data_dir: str, limit: int | None,
               concurrency: int, retry_failed: bool, triton_url: str | None,
               request_timeout: float | None) -> list[dict[str, Any]]:
    adapter = get_adapter("conceptmath")
    store = open_store(db)
    dataset = pipeline.prepare(store, adapter, resolve_data_dir(data_dir))
    chosen = adapter.select(dataset.items, limit)
    kind, _ = parse_spec(model)
    make = lambda: get_backend(model, timeout_s=request_timeout, triton_url=triton_url)  # noqa: E731
    by_likelihood = probe == "classify" and kind == "triton"
    params = {"rouge": probes.CONTINUATION_PARAMS, "mink": {"score": True},
              "classify": {"rank": "likelihood"} if by_likelihood else probes.CLASSIFY_PARAMS}[probe]
    store.start_run(RunSpec(run_id, adapter.NAME, model, kind, probes.SETTINGS[probe],
                            dict(params)), n_items=len(chosen))
    statuses = store.item_statuses(run_id)
    todo = [it for it in chosen if statuses.get(it.item_id) is None
            or (retry_failed and statuses[it.item_id] == "infra_failed")]
    options = {s: probes.level2_options(dataset.items, s) for s in {it.group_id for it in chosen}}
    if probe == "rouge":
        requests = [probes.continuation_request(it, model) for it in todo]
        factory = make
    elif probe == "mink":
        requests = [probes.mink_request(it, model) for it in todo]
        factory = lambda: probes.Scoring(make())  # noqa: E731
    else:
        requests = [probes.classify_request(it, model, options[it.group_id], by_likelihood)
                    for it in todo]
        factory = (lambda: probes.RankByLikelihood(make())) if by_likelihood else make
    counts = pipeline.send(store, run_id, model, factory, requests, in_flight=concurrency)
    get_run_logger().info("%s: %d asked: %s", run_id, len(requests),
                          ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none")

    by_id = {it.item_id: it for it in chosen}
    answers = store.query("SELECT item_id, response FROM current_responses WHERE run_id = ? "
                          "AND status = 'ok'", [run_id])
    if probe == "rouge":
        scores = [(iid, probes.rouge_l(probes.halves(by_id[iid])[1], text,
                                       adapter.language(by_id[iid].group_id)), None)
                  for iid, text in answers if iid in by_id]
        store.write_probe_scores(run_id, "rouge_l", scores)
    elif probe == "classify":
        scores = []
        for iid, text in answers:
            if iid in by_id:
                opts = options[by_id[iid].group_id]
                ranking = probes.parse_ranking(text, len(opts))
                gold = opts.index(probes.gold_option(by_id[iid])) + 1
                scores.append((iid, probes.reciprocal_rank(ranking, gold),
                               ",".join(map(str, ranking))))
        store.write_probe_scores(run_id, "reciprocal_rank", scores)
    run = store.run(run_id)
    store.finish_run(run_id, "completed" if run["n_infra_failed"] == 0 else "incomplete")
    return store.query_dicts(f"SELECT * FROM {VIEWS[probe]} WHERE run_id = ? ORDER BY system",
                             [run_id])


def _check(benchmark: str, model: str) -> None:
    if benchmark != "conceptmath":
        raise MathprobeError(f"the probes are ConceptMath's; not defined for {benchmark!r}")
    runtime.run(get_backend(model).aclose())   # a bad spec or a missing key fails first


@flow(name="contamination", log_prints=True)
def contamination_flow(model: str, method: str = "both", benchmark: str = "conceptmath",
                       run_id: str | None = None, db: str = "mathprobe.duckdb",
                       data_dir: str | None = None, limit: int | None = None,
                       concurrency: int = 16, retry_failed: bool = False,
                       triton_url: str | None = None,
                       request_timeout: float | None = None) -> dict[str, Any]:
    """Contamination probes: `rouge`, `mink` or `both`; one run per method (`run_id` is the
    prefix of the run ids when both)."""
    _check(benchmark, model)
    methods = {"rouge": ["rouge"], "mink": ["mink"], "both": ["rouge", "mink"]}.get(method)
    if methods is None:
        raise MathprobeError(f"--method {method!r}: rouge, mink or both")
    data_dir = str(resolve_data_dir(data_dir))
    out = {}
    for m in methods:
        rid = (f"{run_id}-{m}" if run_id and len(methods) > 1 else run_id) \
            or probe_run_id(benchmark, model, m)
        out[m] = {"run_id": rid, "rows": probe_task(m, model, rid, db, data_dir, limit,
                                                    concurrency, retry_failed, triton_url,
                                                    request_timeout)}
    return out


@flow(name="classify", log_prints=True)
def classify_flow(model: str, benchmark: str = "conceptmath", run_id: str | None = None,
                  db: str = "mathprobe.duckdb", data_dir: str | None = None,
                  limit: int | None = None, concurrency: int = 16, retry_failed: bool = False,
                  triton_url: str | None = None,
                  request_timeout: float | None = None) -> dict[str, Any]:
    """Concept classification: MRR and top-1 of the true level-2 concept, per system."""
    _check(benchmark, model)
    rid = run_id or probe_run_id(benchmark, model, "classify")
    return {"classify": {"run_id": rid, "rows": probe_task(
        "classify", model, rid, db, str(resolve_data_dir(data_dir)), limit, concurrency,
        retry_failed, triton_url, request_timeout)}}
