"""A model as judge, after the rules: for benchmarks with a `Judge` (tasks.contract), which
gives the judge's prompt, its verdict parser, its params and the rule grader it follows.

The judge's calls are a run of their own (`<run id>@judge:<judge>`), stored in `responses` like
any model call: cached by content hash, resumable, with tokens and cost. A reply without a
readable verdict is stored as `judge_failed` (never a verdict, re-driven by --retry-failed).
The judged run gets two graders: `judge:<judge>` (the judge's verdict on the answers the rules
left undecided) and `cascade:<judge>` (the rules where they decided, else the judge).
A --judge value is BACKEND:NAME, optionally followed by the judge's own options after '#'
(`triton:gradegpt#prompt=gradegpt`): the backend gets the part before '#', the benchmark's
`Judge.configured` the options; the whole value names the judge's run and graders.
"""
from __future__ import annotations

from typing import Any

from mathprobe.tasks.contract import Benchmark, Judge
from mathprobe.tasks.errors import MathprobeError
from mathprobe.tasks.items import Completion, Item, Request
from mathprobe.tasks.runs import card
from mathprobe.tasks.store import ANSWERED_SQL, RunSpec, Store


def judge_run_id(run_id: str, judge: str) -> str:
    return f"{run_id}@judge:{judge}"


def backend_spec(judge: str) -> str:
    """The backend part of a --judge value: `triton:gradegpt` of `triton:gradegpt#prompt=...`."""
    return judge.partition("#")[0]


def judge_options(judge: str) -> dict[str, str]:
    """The options after '#' in a --judge value: `#prompt=gradegpt,verdict=official` ->
    {'prompt': 'gradegpt', 'verdict': 'official'}."""
    _, sep, tail = judge.partition("#")
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in tail.split(","))) if sep else ():
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise MathprobeError(f"--judge {judge!r}: options go after '#' as key=value pairs "
                                 "separated by commas, e.g. triton:gradegpt#prompt=gradegpt")
        out[key.strip()] = value.strip()
    return out


def judge_of(bench: Benchmark, judge: str | None = None) -> Judge:
    """The benchmark's judge, configured with the options of the --judge value `judge`; a
    MathprobeError if the benchmark is graded by rules only or an option is not its."""
    if bench.judge is None:
        raise MathprobeError(f"--judge: {bench.name} is graded by rules only, it has no judge")
    return bench.judge if judge is None else bench.judge.configured(judge_options(judge))


class VerdictChecked:
    """Wraps the judge's backend: an answer with no readable verdict becomes `judge_failed`."""

    def __init__(self, inner, parse):
        self.inner, self.parse = inner, parse
        self.kind, self.model = inner.kind, inner.model

    async def complete(self, request: Request) -> Completion:
        c = await self.inner.complete(request)
        if c.status == "ok" and self.parse(c.text) is None:
            c.status = "judge_failed"
            c.error = f"no verdict in the judge's reply: ...{(c.text or '')[-160:]!r}"
        return c

    async def aclose(self) -> None:
        await self.inner.aclose()


def undecided(store: Store, run_id: str, rules: str) -> list[tuple[int, str, str | None]]:
    """(response_id, item_id, response) of the run's answers the grader `rules` left
    undecided."""
    return store.query(f"""
        SELECT c.response_id, c.item_id, c.response FROM current_responses c
        WHERE c.run_id = ? AND c.status IN {ANSWERED_SQL}
          AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = c.run_id
                          AND v.item_id = c.item_id AND v.grader = ?
                          AND v.response_id = c.response_id)
        ORDER BY c.response_id""", [run_id, rules])


def prepare(store: Store, bench: Benchmark, items: dict[str, Item], run_id: str, judge: str,
            retry_failed: bool) -> tuple[str, list[Request]]:
    """Open the judge's run; the requests still to send (never-judged answers, or with
    `retry_failed` those whose judging failed)."""
    from mathprobe.tasks.backends import parse_spec

    spec = judge_of(bench, judge)
    jrun = judge_run_id(run_id, judge)
    kind, _ = parse_spec(backend_spec(judge))
    pending = undecided(store, run_id, spec.rules_grader)
    store.start_run(RunSpec(jrun, bench.name, judge, kind, "judge", dict(spec.params)),
                    n_items=len(pending))
    statuses = store.item_statuses(jrun)
    requests, prompts = [], []
    for _, item_id, response in pending:
        system, user = spec.prompt(items[item_id], response)
        prompts.append((system, user))
        status = statuses.get(item_id)
        if status is None or (retry_failed and status in ("infra_failed", "judge_failed")):
            requests.append(Request(item_id=item_id, model=judge, prompt=user, system=system,
                                    params=dict(spec.params)))
    store.set_card(run_id, card.judge_facts(judge, prompts, dict(spec.params)))
    return jrun, requests


def write_verdicts(store: Store, bench: Benchmark, run_id: str, judge: str) -> dict[str, Any]:
    """Turn the judge's stored replies into `judge:` and `cascade:` verdicts of the judged run."""
    spec = judge_of(bench, judge)
    jrun = judge_run_id(run_id, judge)
    answers = {iid: text for iid, text in store.query(
        "SELECT item_id, response FROM current_responses WHERE run_id = ? AND status = 'ok'", [jrun])}
    judged = []
    for response_id, item_id, _ in undecided(store, run_id, spec.rules_grader):
        if item_id in answers:
            verdict = spec.parse(answers[item_id])
            if verdict is not None:
                judged.append((item_id, response_id, "Yes" if verdict else "No", verdict))
    store.write_verdicts(run_id, f"judge:{judge}", judged)
    rules = store.query("SELECT v.item_id, v.response_id, v.extracted, v.correct FROM verdicts v "
                        "JOIN current_responses c ON c.response_id = v.response_id "
                        "WHERE v.run_id = ? AND v.grader = ?", [run_id, spec.rules_grader])
    store.write_verdicts(run_id, f"cascade:{judge}", [*rules, *judged])
    failed = store.query("SELECT count(*) FILTER (status = 'judge_failed'), "
                         "count(*) FILTER (status = 'infra_failed') FROM current_responses "
                         "WHERE run_id = ?", [jrun])[0]
    return {"judged": len(judged), "judge_failed": failed[0], "infra_failed": failed[1],
            "rules": len(rules)}
