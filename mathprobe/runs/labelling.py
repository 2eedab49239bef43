"""Why a run's answers are wrong: each answer its report grader calls wrong labelled with its
benchmark's error taxonomy (`Benchmark.error_taxonomy`, mathprobe/error_taxonomy.py), into the
table `error_labels` (sql/core/tables/error_labels.sql).

Rules first, where they decide: a refusal or an empty answer gets the taxonomy's `no_attempt`
type (CMMaTH's Reject Error) without a labeller; a taxonomy without one leaves it unlabelled,
counted. The rest goes to a labeller model: its calls are a run of their own
(`<run>@errors:<labeller>`), stored in `responses` like any model call, resumable, with tokens
and cost, every call cached by content through the judge's machinery
(`mathprobe.runs.judging.from_cache`: a request whose hash already has an `ok` reply anywhere in
the store is answered from it), so labelling a run again asks nothing. A reply without a
readable type is stored `label_failed` (`judging.VerdictChecked`): no label, never a guess;
`retry_failed` asks those again. Labellers sit side by side (a label is keyed by run, item and
labeller). `sample` labels a seeded stratified sample of the wrong answers (the benchmark's
strata, `mathprobe.sampling`: a larger sample is a superset), recorded on the labeller run's
card, so the figures can say so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mathprobe.contract import Benchmark
from mathprobe.error_taxonomy import LABEL_PARAMS, ErrorTaxonomy, Label
from mathprobe.errors import MathprobeError
from mathprobe.items import Item, Request
from mathprobe.runs import judging
from mathprobe.sampling import stratified_sample
from mathprobe.store import RunSpec, Store
from mathprobe.store.runs_table import now

LABEL_RUN_MARK = "@errors:"      # a labeller's own calls: the run <run>@errors:<labeller>
LABEL_FAILED = "label_failed"    # a reply without a readable error type
SETTING = "errors"               # the labeller run's setting


def label_run_id(run_id: str, labeller: str) -> str:
    return f"{run_id}{LABEL_RUN_MARK}{labeller}"


def is_own_run(run_id: str) -> bool:
    """Whether a run holds a judge's or a labeller's calls rather than a model's answers."""
    return judging.JUDGE_RUN_MARK in run_id or LABEL_RUN_MARK in run_id


def taxonomy_of(bench: Benchmark) -> ErrorTaxonomy:
    if bench.error_taxonomy is None:
        raise MathprobeError(f"{bench.title} declares no error taxonomy: its wrong answers are "
                             "not labelled (Benchmark.error_taxonomy)")
    return bench.error_taxonomy


def write_types(store: Store, bench: Benchmark) -> None:
    """The benchmark's taxonomy into `error_types` (replacing its rows): what the labels name."""
    tax = taxonomy_of(bench)
    rows = [(bench.name, t.name, k, t.definition, t.source or tax.source, t.name == tax.no_attempt)
            for k, t in enumerate(tax.all_types, start=1)]

    def work(con) -> None:
        con.execute("DELETE FROM error_types WHERE benchmark = ?", [bench.name])
        con.executemany("INSERT INTO error_types VALUES (?, ?, ?, ?, ?, ?)", rows)
    store.write(work)


@dataclass(frozen=True)
class Wrong:
    """An answer the grader calls wrong."""
    response_id: int
    item_id: str
    response: str | None
    status: str


def wrong_answers(store: Store, run_id: str, grader: str) -> list[Wrong]:
    """The run's answers (those that count) that `grader` calls wrong, by item id."""
    rows = store.query("SELECT c.response_id, c.item_id, c.response, c.status "
                       "FROM item_verdicts v JOIN current_responses c "
                       "ON c.response_id = v.response_id "
                       "WHERE v.run_id = ? AND v.grader = ? AND NOT v.correct ORDER BY c.item_id",
                       [run_id, grader])
    return [Wrong(*r) for r in rows]


def no_attempt(w: Wrong) -> bool:
    """The model declined (a refusal) or answered nothing: no reasoning to label."""
    return w.status == "refused" or (w.status == "ok" and not (w.response or "").strip())


def sampled(bench: Benchmark, items: Mapping[str, Item], wrong: Sequence[Wrong],
            sample: int | None) -> list[Wrong]:
    """A seeded stratified sample of about `sample` wrong answers over the benchmark's strata
    (all of them with None); the same `sample` picks the same answers every time."""
    if sample is None:
        return list(wrong)
    known = [w for w in wrong if w.item_id in items]
    chosen = {i.item_id for i in stratified_sample([items[w.item_id] for w in known], sample,
                                                   strata=bench.strata)}
    return [w for w in known if w.item_id in chosen]


def labeller_image_path(bench: Benchmark, item: Item, setting: str) -> str | None:
    """The image the model saw with the question (the labeller sees it too), if any."""
    try:
        path = bench.request_image(item, setting)
    except ValueError:                     # an imported run's setting is its file format
        path = item.image_path
    return path if path and Path(path).is_file() else None


def labeller_image(bench: Benchmark, item: Item, setting: str) -> bytes | None:
    path = labeller_image_path(bench, item, setting)
    return Path(path).read_bytes() if path else None


@dataclass
class LabelPlan:
    """A labeller's run on a labelled run: rule labels, requests to send, what the cache
    answered, and why any wrong answer is left unlabelled."""
    lrun: str
    grader: str
    n_wrong: int
    chosen: list[Wrong]
    rules: list[tuple[Wrong, Label]]
    requests: list[Request]
    cached: int = 0
    unlabelled: dict[str, int] = field(default_factory=dict)


def prepare(store: Store, bench: Benchmark, items: Mapping[str, Item], run: Mapping[str, Any],
            labeller: str, grader: str, *, sample: int | None = None,
            retry_failed: bool = False) -> LabelPlan:
    """Open the labeller's run and plan it: the wrong answers (a sample of them), the labels
    rules give, the requests still to send (never asked, or with `retry_failed` those whose
    reply was unreadable or whose call failed), after the content cache answered what it can."""
    from mathprobe.backends import parse_spec

    tax = taxonomy_of(bench)
    run_id = run["run_id"]
    wrong = wrong_answers(store, run_id, grader)
    chosen = sampled(bench, items, wrong, sample)
    unlabelled: dict[str, int] = {}
    rules, ask = [], []
    for w in chosen:
        if w.item_id not in items:
            unlabelled["item not in the data"] = unlabelled.get("item not in the data", 0) + 1
        elif w.status == "missing":
            unlabelled["no response (missing)"] = unlabelled.get("no response (missing)", 0) + 1
        elif no_attempt(w):
            if tax.no_attempt is None:
                key = "no attempt (no type for it in the taxonomy)"
                unlabelled[key] = unlabelled.get(key, 0) + 1
            else:
                why = "the model declined" if w.status == "refused" else "an empty answer"
                rules.append((w, Label(tax.no_attempt, None, f"by rule: {why}, no attempt")))
        else:
            ask.append(w)
    lrun = label_run_id(run_id, labeller)
    kind, _ = parse_spec(judging.backend_spec(labeller), "--judge")
    store.start_run(RunSpec(lrun, bench.name, labeller, kind, SETTING, dict(LABEL_PARAMS)),
                    n_items=len(ask))
    # the card keeps the largest sample labelled (a larger one is a superset), or that every
    # wrong answer was
    before = store.card_facts(lrun) or {}
    store.set_card(lrun, {"labelled_run": run_id, "grader": grader, "taxonomy": tax.source,
                          "sample": max(sample, before.get("sample") or 0) if sample else None,
                          "all": bool(before.get("all")) or sample is None})
    statuses = store.item_statuses(lrun)
    requests = []
    for w in ask:
        status = statuses.get(w.item_id)
        if status is None or (retry_failed and status in ("infra_failed", LABEL_FAILED)):
            item = items[w.item_id]
            system, user = tax.prompt(bench.shown_question(item), item.gold, w.response or "")
            requests.append(Request(item_id=w.item_id, model=labeller, prompt=user,
                                    system=system, params=dict(LABEL_PARAMS),
                                    image=labeller_image(bench, item, run["setting"])))
    fresh = [r for r in requests if statuses.get(r.item_id) is None]
    remaining, cached = judging.from_cache(store, lrun, fresh)
    kept = {r.item_id for r in remaining}
    requests = [r for r in requests if r.item_id in kept or statuses.get(r.item_id) is not None]
    return LabelPlan(lrun, grader, len(wrong), chosen, rules, requests, cached, unlabelled)


def write_labels(store: Store, bench: Benchmark, plan: LabelPlan, labeller: str) -> dict[str, int]:
    """The rule labels and the labeller's readable replies into `error_labels` (for the answers
    of the plan); counts of labels by source, label_failed and failed calls."""
    tax = taxonomy_of(bench)
    replies = {iid: (rid, text) for rid, iid, text in store.query(
        "SELECT response_id, item_id, response FROM current_responses WHERE run_id = ? "
        "AND status = 'ok'", [plan.lrun])}
    at = now()
    rows = [(w, label, "rules", None) for w, label in plan.rules]
    for w in plan.chosen:
        if w.item_id in replies:
            rid, text = replies[w.item_id]
            label = tax.read_label(text)
            if label is not None:
                rows.append((w, label, "model", rid))
    run_id = plan.lrun.split(LABEL_RUN_MARK)[0]
    store_labels(store, run_id, labeller, plan.grader,
                 [(w.item_id, w.response_id, label, source, rid) for w, label, source, rid in rows],
                 at)
    failed, infra = store.query(
        f"SELECT count(*) FILTER (status = '{LABEL_FAILED}'), "
        "count(*) FILTER (status = 'infra_failed') FROM current_responses WHERE run_id = ?",
        [plan.lrun])[0]
    return {"labelled": len(rows), "by_rule": len(plan.rules),
            "by_model": len(rows) - len(plan.rules), "label_failed": failed,
            "infra_failed": infra}


def store_labels(store: Store, run_id: str, labeler: str, grader: str,
                 rows: Sequence[tuple[str, int, Label, str, int | None]], at=None) -> None:
    """(item_id, response_id, label, source, label_response_id) rows of one labeller: a label
    of the same run, item and labeller is replaced; other labellers' are never touched."""
    from mathprobe.store.bulk import replace_keyed, unnest

    if not rows:
        return
    select, params = unnest({
        "item_id": ("VARCHAR", [r[0] for r in rows]),
        "response_id": ("BIGINT", [r[1] for r in rows]),
        "error_type": ("VARCHAR", [r[2].error_type for r in rows]),
        "first_error": ("VARCHAR", [r[2].first_error for r in rows]),
        "rationale": ("VARCHAR", [r[2].rationale for r in rows]),
        "source": ("VARCHAR", [r[3] for r in rows]),
        "label_response_id": ("BIGINT", [r[4] for r in rows]),
    })
    params.update(run_id=run_id, labeler=labeler, grader=grader, at=at or now())
    key = ("run_id", "item_id", "labeler")
    store.write(lambda con: replace_keyed(con, "error_labels", key, f"""
        SELECT $run_id AS run_id, s.item_id, $labeler AS labeler, s.response_id,
               $grader AS grader, s.error_type, s.first_error, s.rationale, s.source,
               s.label_response_id, $at::TIMESTAMP AS labelled_at
        FROM (SELECT {select}) s""", params))


def label_run(store: Store, bench: Benchmark, items: Mapping[str, Item], run: Mapping[str, Any],
              labeller: str, grader: str, *, sample: int | None = None,
              retry_failed: bool = False, concurrency: int = 16, timeout_s: float | None = None,
              triton_url: str | None = None, max_cost: float | None = None) -> dict[str, Any]:
    """Label the wrong answers of a stored run with `labeller` (nothing is asked of the
    evaluated model): plan, send what neither rules nor the cache answered, store the labels,
    finish the labeller's run. Returns counts: wrong, chosen, asked, cached, labelled (by rule,
    by model), label_failed, infra_failed, unlabelled by reason."""
    from mathprobe.backends import get_backend
    from mathprobe.runs import progress
    from mathprobe.runs.asking import Budget, send

    tax = taxonomy_of(bench)
    write_types(store, bench)
    plan = prepare(store, bench, items, run, labeller, grader, sample=sample,
                   retry_failed=retry_failed)

    def readable(request: Request, text: str | None) -> bool:
        return tax.read_label(text) is not None

    spec = judging.backend_spec(labeller)
    counts: dict[str, int] = {}
    budget = Budget(max_cost, store.spent(plan.lrun))
    if plan.requests:
        progress.emit("start", plan.lrun, total=len(plan.requests))
        counts = send(store, plan.lrun, spec,
                      lambda: judging.VerdictChecked(
                          get_backend(spec, timeout_s=timeout_s, triton_url=triton_url),
                          readable, failed=LABEL_FAILED,
                          missing="no readable 'Error type:' line in the labeller's reply"),
                      plan.requests, in_flight=concurrency,
                      budget=budget,
                      on_done=lambda item_id, c: progress.emit("done", plan.lrun,
                                                               status=c.status))
    if store.write_failure():
        return {"asked": len(plan.requests), "counts": counts, "write_failed": True}
    result = write_labels(store, bench, plan, labeller)
    not_asked = counts.get("not_asked", 0) + counts.get("interrupted", 0)
    store.finish_run(plan.lrun, "interrupted" if counts.get("interrupted") else
                     "stopped_max_cost" if not_asked else
                     "completed" if not (result["label_failed"] or result["infra_failed"])
                     else "incomplete")
    return {"labelled_run": run["run_id"], "labeller": labeller, "labeller_run": plan.lrun,
            "grader": grader, "sample": sample, "wrong": plan.n_wrong, "chosen": len(plan.chosen),
            "asked": len(plan.requests) - not_asked, "not_asked": not_asked,
            "cached_now": plan.cached, "unlabelled": plan.unlabelled, **result,
            "counts": counts, "stopped": budget.stopped(not_asked) if not_asked else None,
            **spent(store, plan.lrun, spec)}


def spent(store: Store, lrun: str, spec: str) -> dict[str, Any]:
    """The labeller run's tokens and cost so far, and whether its model has a price."""
    from mathprobe.backends import prices

    (tokens_in, tokens_out, cost), = store.query(
        "SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
        "coalesce(sum(cost_usd), 0) FROM current_responses WHERE run_id = ?", [lrun])
    return {"input_tokens": int(tokens_in), "output_tokens": int(tokens_out),
            "cost_usd": float(cost), "priced": prices.is_priced(spec)}


@dataclass
class Checked:
    """What labelling a run needs, checked before anything is asked (`check`)."""
    store: Store
    bench: Benchmark
    run: dict[str, Any]
    items: dict[str, Item]
    grader: str


def check(db: str, run_id: str, labeller: str, *, data_dir: str | Path | None = None,
          grader: str | None = None, sample: int | None = None, concurrency: int | None = None,
          request_timeout: float | None = None, max_cost: float | None = None) -> Checked:
    """Every check of `mathprobe errors` and the `errors` flow, before anything is asked: the
    numbers, the labeller's BACKEND:NAME and its key, the run (one with answers, not a judge's
    or a labeller's own), a taxonomy for its benchmark, the grader, the data."""
    from mathprobe import registry
    from mathprobe.reports.selection import check_grader, default_grader, find_run
    from mathprobe.runs import preflight
    from mathprobe.runs.asking import check_backend
    from mathprobe.store import open_store

    preflight.check_environment()
    preflight.check_counts(concurrency=concurrency, request_timeout=request_timeout,
                           sample=sample, max_cost=max_cost)
    if "#" in labeller:
        raise MathprobeError(f"--judge {labeller!r}: a labeller takes no options after '#'")
    preflight.model(labeller, "--judge")
    preflight.check_priced(labeller, max_cost, "--judge")
    preflight.store_path(db)
    store = open_store(db)
    run = find_run(store, run_id)
    if is_own_run(run_id):
        raise MathprobeError(f"{run_id} holds a judge's or a labeller's calls; name the run "
                             "whose answers to label")
    bench = registry.get(run["benchmark"])
    taxonomy_of(bench)
    if grader is not None:
        check_grader(store, {run_id: (run["benchmark"], run["setting"])}, grader)
    check_backend(labeller)                              # the API key, before anything runs
    items = items_of(store, bench, run_id, bench.load(preflight.data(bench, data_dir)).by_id())
    return Checked(store, bench, {**run, "run_id": run_id}, items,
                   grader or default_grader(store, run_id, bench))


def items_of(store: Store, bench: Benchmark, run_id: str, loaded: Mapping[str, Item]
             ) -> dict[str, Item]:
    """The run's items: the data's, and those a result file defined itself (a CMMaTH authors'
    record the local sample lacks: `items` keeps them), as the store holds them."""
    import json

    out = dict(loaded)
    for item_id, group_id, part, concept, question, gold, payload in store.query(
            "SELECT i.item_id, i.group_id, i.part, i.concept, i.question, i.gold, i.payload "
            "FROM items i JOIN current_response_ids k ON k.item_id = i.item_id "
            "WHERE i.benchmark = ? AND k.run_id = ?", [bench.name, run_id]):
        if item_id not in out:
            out[item_id] = Item(bench.name, item_id, question or "", gold or "", group_id, part,
                                concept, payload=json.loads(payload) if payload else {})
    return out
