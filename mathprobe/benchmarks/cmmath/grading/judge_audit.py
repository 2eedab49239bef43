"""The judge audit: a grader's agreement with GPT-4's verdicts on the authors' GradeGPT
judgment sample (`gradegpt_judgments_sample.jsonl`): the reader of the sample, the rule stage's
verdicts on it, a judge backend's (through the same pipeline as model calls) and the cascade's.
The figures are the `judge_agreement` view (`sql/cmmath/judge_audit/`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.cmmath.data.dataset import NAME
from mathprobe.benchmarks.cmmath.data.options import gold_letters, option_letters
from mathprobe.benchmarks.cmmath.grading.judge import JUDGE_PARAMS, parse_verdict
from mathprobe.benchmarks.cmmath.grading.rules import grade
from mathprobe.errors import DataError, MathprobeError
from mathprobe.files import read_text
from mathprobe.items import Item, Request
from mathprobe.store import RunSpec, Store

SAMPLE_FILE = "gradegpt_judgments_sample.jsonl"


def sample_path(data_dir: Path) -> Path:
    return Path(data_dir) / NAME / SAMPLE_FILE


def _split_user(content: str) -> tuple[str, str, str] | None:
    """(question, reference, response) of a GradeGPT user turn, or None if it is not one."""
    q = content.find("Question: ")
    r = content.find("\nReference Answer: ", q + 1)
    m = content.find("\nModel Response: ", r + 1)
    j = content.rfind("\nJudgment Result:")
    if min(q, r, m, j) < 0 or not q < r < m < j:
        return None
    return (content[q + len("Question: "):r], content[r + len("\nReference Answer: "):m],
            content[m + len("\nModel Response: "):j])


def read_judgment_sample(path: str | Path) -> list[dict[str, Any]]:
    """The authors' GradeGPT instructions with GPT-4's verdicts (chat format, JSON lines):
    per record {index (its line number), question, reference, response, judgment (the
    assistant turn), gpt4_verdict (bool)}. A malformed record is a DataError naming its line
    and field."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found (is --data-dir / MATHPROBE_DATA_DIR right?)")
    out = []
    for n, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"not valid JSON: {exc}", row=n) from exc
        if not isinstance(rec, dict):
            raise DataError(path, "expected a JSON object", row=n)
        messages = rec.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise DataError(path, "expected a list of chat messages", row=n, field="messages")
        by_role: dict[str, str] = {}
        for k, msg in enumerate(messages):
            if not isinstance(msg.get("role"), str) or not isinstance(msg.get("content"), str):
                raise DataError(path, "a message needs string 'role' and 'content'", row=n,
                                field=f"messages[{k}]")
            by_role.setdefault(msg["role"], msg["content"])
        for role in ("user", "assistant"):
            if role not in by_role:
                raise DataError(path, f"no {role} message", row=n, field="messages")
        parts = _split_user(by_role["user"])
        if parts is None:
            raise DataError(path, "the user message lacks 'Question: ', 'Reference Answer: ', "
                            "'Model Response: ' or 'Judgment Result:' (in that order)", row=n,
                            field="messages.user")
        verdict = parse_verdict(by_role["assistant"])
        if verdict is None:
            raise DataError(path, "the assistant message has no verdict ('The consistency of "
                            "the answers is: Yes/No')", row=n, field="messages.assistant")
        question, reference, response = parts
        out.append({"index": n, "question": question, "reference": reference,
                    "response": response, "judgment": by_role["assistant"],
                    "gpt4_verdict": verdict})
    if not out:
        raise DataError(path, "no records")
    return out


def load_judgment_sample(store: Store, path: str | Path) -> int:
    """Put the sample into `cmmath_judge_audit` (replacing what was there); returns its size."""
    rows = read_judgment_sample(path)
    store.replace_table("cmmath_judge_audit", {
        "idx": ("INTEGER", [r["index"] for r in rows]),
        "question": ("VARCHAR", [r["question"] for r in rows]),
        "reference": ("VARCHAR", [r["reference"] for r in rows]),
        "response": ("VARCHAR", [r["response"] for r in rows]),
        "gpt4_verdict": ("BOOLEAN", [r["gpt4_verdict"] for r in rows]),
    })
    return len(rows)


def write_audit_verdicts(store: Store, audit_id: str, grader: str,
                         rows: Iterable[tuple[int, bool | None]]) -> int:
    """(idx, verdict) rows of one grader on the audit sample; None = undecided / judge_failed.
    Writing again replaces that grader's verdicts in this audit."""
    rows = list(rows)
    with store.transaction() as con:
        con.execute("DELETE FROM cmmath_audit_verdicts WHERE audit_id = ? AND grader = ?",
                    [audit_id, grader])
        if rows:
            con.execute(
                "INSERT INTO cmmath_audit_verdicts (audit_id, grader, idx, verdict) "
                "SELECT $audit_id, $grader, unnest($idx::INTEGER[]), unnest($verdict::BOOLEAN[])",
                {"audit_id": audit_id, "grader": grader, "idx": [r[0] for r in rows],
                 "verdict": [r[1] for r in rows]})
    return len(rows)


def sample_item(question: str, reference: str, index: int | str = 0) -> Item:
    """The minimal Item the rule grader needs for a sample record: a choice question when the
    reference answer is a set of option letters that the question text offers as options."""
    letters = gold_letters(reference)
    options = option_letters(question)
    choice = letters is not None and bool(options) and letters <= set(options)
    return Item(benchmark=NAME, item_id=f"audit-{index}", question=question,
                gold=reference.strip(), choices=options if choice else (),
                part="choice" if choice else "free_form")


def audit_rules(store: Store, audit_id: str = "rules", sample_path: str | Path | None = None,
                grader: str = "rules") -> dict[str, Any]:
    """Grade every record of the judgment sample with the rule stage and store its verdicts
    (undecided -> NULL) under `audit_id`; returns that audit's `judge_agreement` row.
    Loads the sample first when `sample_path` is given."""
    if sample_path is not None:
        load_judgment_sample(store, sample_path)
    records = store.query("SELECT idx, question, reference, response FROM cmmath_judge_audit "
                          "ORDER BY idx")
    if not records:
        raise MathprobeError("cmmath_judge_audit is empty: load the sample first "
                             "(cmmath_judge.load_judgment_sample, or pass sample_path)")
    verdicts = [(idx, grade(grader, sample_item(q, ref, idx), resp)[1])
                for idx, q, ref, resp in records]
    write_audit_verdicts(store, audit_id, grader, verdicts)
    rows = store.query_dicts("SELECT * FROM judge_agreement WHERE audit_id = ? AND grader = ?",
                             [audit_id, grader])
    return rows[0]


def audit_judge(store: Store, audit_id: str, grader: str,
                replies: Sequence[tuple[int, str | None]], parse=parse_verdict) -> dict[str, Any]:
    """Store a judge's raw replies on the sample ((idx, reply text) pairs, read by `parse`; an
    unreadable or missing reply counts as judge_failed, i.e. NULL) and return its agreement
    row."""
    write_audit_verdicts(store, audit_id, grader, [(i, parse(t)) for i, t in replies])
    rows = store.query_dicts("SELECT * FROM judge_agreement WHERE audit_id = ? AND grader = ?",
                             [audit_id, grader])
    return rows[0]


# -- the audit with a judge backend -----------------------------------------------------------

AUDIT_RUN = "judge-audit"


def run_judge_audit(store: Store, judge: str, audit_id: str, *, spec: Any,
                    data_dir: str | Path = "", concurrency: int | None = None,
                    limit: int | None = None,
                    timeout_s: float | None = None,
                    triton_url: str | None = None) -> list[dict[str, Any]]:
    """Ask `judge` (a --judge value: BACKEND:NAME, options after '#') about the sample's
    records (the first `limit`), through the same pipeline as model calls (stored under run
    `judge-audit@judge:<judge>`: cached, resumable, with tokens and cost), then store its
    verdicts and the cascade's (rules where decided, else the judge) and return both
    `judge_agreement` rows. `spec` is the CmmathJudge configured by the --judge value's options.
    Needs the rule audit of `audit_id` first."""
    from mathprobe.backends import get_backend, parse_spec
    from mathprobe.runs import judging, send

    backend = judging.backend_spec(judge)
    records = store.query("SELECT idx, question, reference, response FROM cmmath_judge_audit "
                          "ORDER BY idx" + (f" LIMIT {int(limit)}" if limit else ""))
    rules = dict(store.query("SELECT idx, verdict FROM cmmath_audit_verdicts WHERE audit_id = ? "
                             "AND grader = 'rules'", [audit_id]))
    jrun = judging.judge_run_id(AUDIT_RUN, judge)
    kind, _ = parse_spec(backend)
    store.start_run(RunSpec(jrun, NAME, judge, kind, "judge-audit",
                            dict(JUDGE_PARAMS)), n_items=len(records))
    statuses = store.item_statuses(jrun)
    requests = []
    for idx, question, reference, response in records:
        if statuses.get(f"audit/{idx}") in (None, "infra_failed", "judge_failed"):
            system, user = spec.messages(question, reference, response, data_dir)
            requests.append(Request(item_id=f"audit/{idx}", model=judge, prompt=user,
                                    system=system, params=dict(JUDGE_PARAMS)))
    requests, _ = judging.from_cache(store, jrun, requests)     # asked before: not again
    send(store, jrun, backend,
         lambda: judging.VerdictChecked(get_backend(backend, timeout_s=timeout_s,
                                                    triton_url=triton_url),
                                        lambda request, text: spec.parse(text) is not None),
         requests, in_flight=concurrency)
    store.finish_run(jrun, "completed")
    replies = dict(store.query("SELECT item_id, response FROM current_responses WHERE run_id = ? "
                               "AND status = 'ok'", [jrun]))
    judged = {idx: spec.parse(replies[f"audit/{idx}"]) if f"audit/{idx}" in replies else None
              for idx, *_ in records}
    write_audit_verdicts(store, audit_id, f"judge:{judge}", judged.items())
    write_audit_verdicts(store, audit_id, f"cascade:{judge}",
                         [(idx, rules.get(idx) if rules.get(idx) is not None else v)
                          for idx, v in judged.items()])
    return store.query_dicts("SELECT * FROM judge_agreement WHERE audit_id = ? AND grader IN "
                             "(?, ?) ORDER BY grader DESC", [audit_id, f"judge:{judge}",
                                                             f"cascade:{judge}"])
