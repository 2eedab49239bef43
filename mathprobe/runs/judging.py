"""A model as judge, after the rules: for benchmarks with a `Judge` (mathprobe.contract), which
gives the judge's prompt, how to read its reply, its params, the rule grader it follows and
which of that grader's answers it is asked about.

The judge's calls are a run of their own (`<run id>@judge:<judge>`), stored in `responses` like
any model call: resumable, with tokens and cost. Every call is cached by content: a request
whose hash (judge model, params, prompt: the inputs it is built from) already has an `ok` reply
anywhere in the store is answered from it, nothing asked (the copy has attempts 0, no tokens,
cost 0), so a re-grade, a re-judged run or a second run with the same answers asks nothing
twice. A reply without a readable verdict is stored as `judge_failed` (never a verdict,
re-driven by --retry-failed). The judged run gets two graders: `judge:<judge>` (the judge's
verdicts on the answers it was asked about) and `cascade:<judge>` (the rules where the judge
was not asked, else the judge).
A --judge value is BACKEND:NAME, optionally followed by options after '#'
(`triton:gradegpt#prompt=gradegpt`): the backend gets the part before '#', the benchmark's
`Judge.configured` the options, except `repeat=N` (N >= 2: the same judge asked again, its own
run and graders, answered from no cache of the first); the whole value names the judge's run and
graders.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mathprobe.contract import Benchmark, Judge
from mathprobe.errors import MathprobeError
from mathprobe.items import Completion, Item, Request
from mathprobe.runs import card
from mathprobe.store import ANSWERED_SQL, RunSpec, Store

REPEAT = "repeat"
JUDGE_RUN_MARK = "@judge:"      # the judge's own calls are a run named <run>@judge:<judge>


def judge_run_id(run_id: str, judge: str) -> str:
    return f"{run_id}{JUDGE_RUN_MARK}{judge}"


def backend_spec(judge: str) -> str:
    """The backend part of a --judge value: `triton:gradegpt` of `triton:gradegpt#prompt=...`."""
    return judge.partition("#")[0]


def _all_options(judge: str) -> dict[str, str]:
    _, sep, tail = judge.partition("#")
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in tail.split(","))) if sep else ():
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise MathprobeError(f"--judge {judge!r}: options go after '#' as key=value pairs "
                                 "separated by commas, e.g. triton:gradegpt#prompt=gradegpt")
        out[key.strip()] = value.strip()
    return out


def judge_options(judge: str) -> dict[str, str]:
    """The benchmark's options after '#' in a --judge value: `#prompt=gradegpt,verdict=official`
    -> {'prompt': 'gradegpt', 'verdict': 'official'} (`repeat` is the core's: `repeat_of`)."""
    options = _all_options(judge)
    options.pop(REPEAT, None)
    return options


def repeat_of(judge: str) -> int:
    """Which asking of the same judge a --judge value is: 1, or N of `#repeat=N`."""
    value = _all_options(judge).get(REPEAT, "1")
    if not value.isdigit() or int(value) < 1:
        raise MathprobeError(f"--judge {judge!r}: repeat={value!r}; give a whole number >= 1")
    return int(value)


def with_repeat(judge: str, n: int) -> str:
    """The --judge value of the n-th asking of `judge` (n = 1: `judge` itself)."""
    if n == 1:
        return judge
    return f"{judge}{',' if '#' in judge else '#'}{REPEAT}={n}"


def judge_of(bench: Benchmark, judge: str | None = None) -> Judge:
    """The benchmark's judge, configured with the options of the --judge value `judge`; a
    MathprobeError if the benchmark is graded by rules only or an option is not its."""
    if bench.judge is None:
        raise MathprobeError(f"--judge: {bench.name} is graded by rules only, it has no judge")
    if judge is None:
        return bench.judge
    repeat_of(judge)
    return bench.judge.configured(judge_options(judge))


Check = Callable[[Request, str | None], bool]


def verdict_checked(check: Check, failed: str = "judge_failed",
                    missing: str = "no verdict in the judge's reply"
                    ) -> Callable[[Request, Completion], Completion]:
    """What a judge's reply is stored as: an answer with no readable verdict `failed` (asked
    directly, `VerdictChecked`; or through a batch, mathprobe/runs/batching.py), its error
    saying what was `missing`."""
    def checked(request: Request, c: Completion) -> Completion:
        if c.status == "ok" and not check(request, c.text):
            c.status = failed
            c.error = f"{missing}: ...{(c.text or '')[-160:]!r}"
        return c
    return checked


class VerdictChecked:
    """Wraps the judge's backend: an answer with no readable verdict becomes `judge_failed`
    (or `failed`, with the error `missing`: a labeller's reply without a readable type is
    `label_failed`, mathprobe.runs.labelling)."""

    def __init__(self, inner, check: Check, failed: str = "judge_failed",
                 missing: str = "no verdict in the judge's reply"):
        self.inner, self.checked = inner, verdict_checked(check, failed, missing)
        self.kind, self.model = inner.kind, inner.model

    async def complete(self, request: Request) -> Completion:
        return self.checked(request, await self.inner.complete(request))

    async def aclose(self) -> None:
        await self.inner.aclose()


def checker(spec: Judge, items: Mapping[str, Item]) -> Check:
    """Whether a reply gives a verdict on the item its request asks about."""
    return lambda request, text: spec.read(items[request.item_id], text) is not None


def to_ask(store: Store, spec: Judge, run_id: str) -> list[tuple[int, str, str | None]]:
    """(response_id, item_id, response) of the run's answers the judge is asked about: those the
    rule grader `spec.rules_grader` graded in a way `spec.asks` picks (by default: left
    undecided, i.e. with no verdict); never an answer without text (nothing to ask about)."""
    rows = store.query(f"""
        SELECT c.response_id, c.item_id, c.response, v.extracted, v.correct
        FROM current_responses c
        LEFT JOIN verdicts v ON v.run_id = c.run_id AND v.item_id = c.item_id
                            AND v.grader = ? AND v.response_id = c.response_id
        WHERE c.run_id = ? AND c.status IN {ANSWERED_SQL}
        ORDER BY c.response_id""", [spec.rules_grader, run_id])
    return [(rid, iid, text) for rid, iid, text, extracted, correct in rows
            if text is not None and spec.asks(extracted, correct)]


def from_cache(store: Store, jrun: str, requests: Sequence[Request]) -> tuple[list[Request], int]:
    """Answer what the store already has: each request whose content hash has an `ok` reply in
    any run is stored in `jrun` as that reply (attempts 0: nothing asked; no tokens, cost 0).
    Returns the requests still to send and how many were answered from the cache."""
    if not requests:
        return [], 0
    hashes = sorted({r.request_hash for r in requests})
    cached = dict(store.query(
        "SELECT request_hash, arg_min(response, response_id) FROM responses WHERE status = 'ok' "
        "AND request_hash IN (SELECT unnest(?::VARCHAR[])) GROUP BY request_hash", [hashes]))
    hits = [r for r in requests if r.request_hash in cached]
    store.append_responses(jrun, [
        (r.item_id, r.request_hash, Completion(text=cached[r.request_hash], attempts=0,
                                               input_tokens=None, output_tokens=None,
                                               cost_usd=0.0, latency_s=0.0))
        for r in hits])
    return [r for r in requests if r.request_hash not in cached], len(hits)


@dataclass
class JudgePlan:
    """A judge's run on a judged run: the requests to send, and how many the cache answered."""
    jrun: str
    requests: list[Request]
    cached: int = 0
    asked_about: int = 0
    counts: dict[str, int] = field(default_factory=dict)


def prepare(store: Store, bench: Benchmark, items: dict[str, Item], run_id: str, judge: str,
            retry_failed: bool) -> JudgePlan:
    """Open the judge's run; the requests still to send (never-judged answers, or with
    `retry_failed` those whose judging failed), after the content cache answered what it can."""
    from mathprobe.backends import parse_spec

    spec = judge_of(bench, judge)
    jrun = judge_run_id(run_id, judge)
    kind, _ = parse_spec(backend_spec(judge))
    pending = to_ask(store, spec, run_id)
    store.start_run(RunSpec(jrun, bench.name, judge, kind, "judge", dict(spec.params)),
                    n_items=len(pending))
    statuses = store.item_statuses(jrun)
    requests, prompts = [], []
    for _, item_id, response in pending:
        system, user = spec.prompt(items[item_id], response)
        prompts.append((system, user))
        status = statuses.get(item_id)
        if status is None or (retry_failed and status in ("infra_failed", "judge_failed",
                                                          "truncated")):
            requests.append(Request(item_id=item_id, model=judge, prompt=user, system=system,
                                    params=dict(spec.params)))
    store.set_card(run_id, card.judge_facts(judge, prompts, dict(spec.params)))
    fresh = [r for r in requests if statuses.get(r.item_id) is None]
    remaining, cached = from_cache(store, jrun, fresh)
    kept = {r.item_id for r in remaining}
    requests = [r for r in requests if r.item_id in kept or statuses.get(r.item_id) is not None]
    return JudgePlan(jrun, requests, cached, len(pending))


def write_verdicts(store: Store, bench: Benchmark, items: Mapping[str, Item], run_id: str,
                   judge: str) -> dict[str, Any]:
    """Turn the judge's stored replies into `judge:` and `cascade:` verdicts of the judged run;
    the counts of verdicts by source, judge_failed and failed calls."""
    spec = judge_of(bench, judge)
    jrun = judge_run_id(run_id, judge)
    answers = {iid: text for iid, text in store.query(
        "SELECT item_id, response FROM current_responses WHERE run_id = ? AND status = 'ok'", [jrun])}
    asked = to_ask(store, spec, run_id)
    judged: list[tuple[str, int, str | None, bool]] = []
    for response_id, item_id, _ in asked:
        if item_id in answers:
            grade = spec.read(items[item_id], answers[item_id])
            if grade is not None:
                judged.append((item_id, response_id, *grade))
    store.write_verdicts(run_id, f"judge:{judge}", judged)
    asked_ids = [rid for rid, _, _ in asked]
    rules = store.query("SELECT v.item_id, v.response_id, v.extracted, v.correct FROM verdicts v "
                        "JOIN current_responses c ON c.response_id = v.response_id "
                        "WHERE v.run_id = ? AND v.grader = ? "
                        "AND NOT list_contains(?::BIGINT[], v.response_id)",
                        [run_id, spec.rules_grader, asked_ids])
    cascade = [*rules, *judged]
    _replace_verdicts(store, run_id, f"cascade:{judge}", cascade)
    failed, infra, cached = store.query(
        # a reasoning judge's reply cut before its verdict (truncated) gave none either
        "SELECT count(*) FILTER (status IN ('judge_failed', 'truncated')), count(*) FILTER ("
        "status = 'infra_failed'), count(*) FILTER (status = 'ok' AND attempts = 0) "
        "FROM current_responses WHERE run_id = ?", [jrun])[0]
    return {"judged": len(judged), "judge_failed": failed, "infra_failed": infra,
            "rules": len(rules), "asked_about": len(asked), "cached": cached}


def _replace_verdicts(store: Store, run_id: str, grader: str, rows: list) -> None:
    """Write a grader's verdicts, dropping the ones it no longer gives (an answer now judged)."""
    from mathprobe.store import run_data

    keep = [r[0] for r in rows]

    def drop(con) -> None:
        gone = con.execute("DELETE FROM verdicts WHERE run_id = ? AND grader = ? AND NOT "
                           "list_contains(?::VARCHAR[], item_id) RETURNING item_id",
                           [run_id, grader, keep]).fetchall()
        if gone:
            run_data.touch(con, run_id)
    store.write(drop)
    store.write_verdicts(run_id, grader, rows)


def judge_run(store: Store, bench: Benchmark, items: dict[str, Item], run_id: str, judge: str, *,
              retry_failed: bool = False, concurrency: int | None = 16,
              timeout_s: float | None = None,
              triton_url: str | None = None, batch: bool = False,
              waiting: Any = None) -> dict[str, Any]:
    """Judge a stored run with `judge` (nothing is asked of the evaluated model): prepare, send
    what the cache did not answer, write the verdicts, finish the judge's run. Returns the
    counts of `write_verdicts` plus `asked` (requests sent) and the send counts. `batch`: the
    judge is asked through its batch API (mathprobe/runs/batching.py; `waiting` shows that it
    waits, e.g. the flow run paused)."""
    from mathprobe.backends import get_backend
    from mathprobe.runs.asking import send
    from mathprobe.runs.batching import BatchRun, NotShown, check_none_waiting

    if not batch:
        check_none_waiting(store, judge_run_id(run_id, judge))
    plan = prepare(store, bench, items, run_id, judge, retry_failed)
    spec = judge_of(bench, judge)
    if not plan.requests:
        counts: dict[str, int] = {}
    elif batch:
        by_item = {r.item_id: r for r in plan.requests}
        counts = BatchRun(store, plan.jrun, backend_spec(judge), dict(spec.params),
                          requests_for=lambda asks: [by_item[i] for i, _ in asks],
                          adjust=verdict_checked(checker(spec, items)),
                          waiting=waiting or NotShown(), timeout_s=timeout_s,
                          ).ask([(i, 0) for i in by_item])
    else:
        counts = send(store, plan.jrun, backend_spec(judge),
                      lambda: VerdictChecked(get_backend(backend_spec(judge), timeout_s=timeout_s,
                                                         triton_url=triton_url),
                                             checker(spec, items)),
                      plan.requests, in_flight=concurrency)
    if store.write_failure():
        return {"asked": len(plan.requests), "counts": counts, "write_failed": True}
    result = write_verdicts(store, bench, items, run_id, judge)
    store.finish_run(plan.jrun, "completed" if not (result["judge_failed"] or result["infra_failed"])
                     else "incomplete")
    return {**result, "asked": len(plan.requests), "cached_now": plan.cached, "counts": counts}
