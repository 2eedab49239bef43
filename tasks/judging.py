"""A model as judge, after the rules: for benchmarks whose adapter has `judge_prompt(item,
response) -> (system, user)`, `parse_judgment(text) -> bool | None` and `JUDGE_PARAMS`.

The judge's calls are a run of their own (`<run id>@judge:<judge>`), stored in `responses` like
any model call: cached by content hash, resumable, with tokens and cost. A reply without a
readable verdict is stored as `judge_failed` (never a verdict, re-driven by --retry-failed).
The judged run gets two graders: `judge:<judge>` (the judge's verdict on the answers the rules
left undecided) and `cascade:<judge>` (the rules where they decided, else the judge).
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

from tasks.items import Completion, Item, Request
from tasks.store import _ANSWERED_SQL, RunSpec, Store

RULES = "rules"


def judge_run_id(run_id: str, judge: str) -> str:
    return f"{run_id}@judge:{judge}"


def supports_judge(adapter: ModuleType) -> bool:
    return hasattr(adapter, "judge_prompt") and hasattr(adapter, "parse_judgment")


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


def undecided(store: Store, run_id: str) -> list[tuple[int, str, str | None]]:
    """(response_id, item_id, response) of the run's answers the rules left undecided."""
    return store.query(f"""
        SELECT c.response_id, c.item_id, c.response FROM current_responses c
        WHERE c.run_id = ? AND c.status IN {_ANSWERED_SQL}
          AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = c.run_id
                          AND v.item_id = c.item_id AND v.grader = '{RULES}'
                          AND v.response_id = c.response_id)
        ORDER BY c.response_id""", [run_id])


def prepare(store: Store, adapter: ModuleType, items: dict[str, Item], run_id: str, judge: str,
            retry_failed: bool) -> tuple[str, list[Request]]:
    """Open the judge's run; the requests still to send (never-judged answers, or with
    `retry_failed` those whose judging failed)."""
    from tasks.backends import parse_spec

    jrun = judge_run_id(run_id, judge)
    kind, _ = parse_spec(judge)
    pending = undecided(store, run_id)
    store.start_run(RunSpec(jrun, adapter.NAME, judge, kind, "judge", dict(adapter.JUDGE_PARAMS)),
                    n_items=len(pending))
    statuses = store.item_statuses(jrun)
    requests = []
    for _, item_id, response in pending:
        status = statuses.get(item_id)
        if status is None or (retry_failed and status in ("infra_failed", "judge_failed")):
            system, user = adapter.judge_prompt(items[item_id], response)
            requests.append(Request(item_id=item_id, model=judge, prompt=user, system=system,
                                    params=dict(adapter.JUDGE_PARAMS)))
    return jrun, requests


def write_verdicts(store: Store, adapter: ModuleType, run_id: str, judge: str) -> dict[str, Any]:
    """Turn the judge's stored replies into `judge:` and `cascade:` verdicts of the judged run."""
    jrun = judge_run_id(run_id, judge)
    answers = {iid: text for iid, text in store.query(
        "SELECT item_id, response FROM current_responses WHERE run_id = ? AND status = 'ok'", [jrun])}
    judged = []
    for response_id, item_id, _ in undecided(store, run_id):
        if item_id in answers:
            verdict = adapter.parse_judgment(answers[item_id])
            if verdict is not None:
                judged.append((item_id, response_id, "Yes" if verdict else "No", verdict))
    store.write_verdicts(run_id, f"judge:{judge}", judged)
    rules = store.query("SELECT v.item_id, v.response_id, v.extracted, v.correct FROM verdicts v "
                        "JOIN current_responses c ON c.response_id = v.response_id "
                        "WHERE v.run_id = ? AND v.grader = ?", [run_id, RULES])
    store.write_verdicts(run_id, f"cascade:{judge}", [*rules, *judged])
    failed = store.query("SELECT count(*) FILTER (status = 'judge_failed'), "
                         "count(*) FILTER (status = 'infra_failed') FROM current_responses "
                         "WHERE run_id = ?", [jrun])[0]
    return {"judged": len(judged), "judge_failed": failed[0], "infra_failed": failed[1],
            "rules": len(rules)}
