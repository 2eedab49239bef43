"""A run's card (`mathprobe card RUN`, `mathprobe export`, the HTML report, `compare`): what
someone needs to reproduce a figure of it, in one place (docs/run-card.md).

The card joins what the run recorded while it ran (`runs.card`, `mathprobe.runs.card`: versions,
data files and their hashes, the prompts' hash, settings, seeds, concurrency, sessions, an
import's file) with what the store can always tell (status, start and end, responses by
status, tokens and cost, the model the server said answered, each grader's verdicts, the judge
runs). A run made before run cards has the second half only, and says so.

`differences` lists what differs between two cards in the fields that decide a figure (not the
counts or times every run has its own of); `compare` shows them for each run against the
baseline.
"""
from __future__ import annotations

import json
from typing import Any

import duckdb

from mathprobe.contract import Section
from mathprobe.reports.selection import find_run
from mathprobe.store import Store

JUDGE_MARK = "@judge:"
# card sections that are a run's own by nature: never reported as a difference
OWN = ("run", "counts", "tokens", "cost_usd", "timing", "sessions", "served_models", "verdicts",
       "judge_runs", "recorded", "sample_counts")


def build(store: Store, run_id: str) -> dict[str, Any]:
    """The card of `run_id` (a MathprobeError listing the runs if there is none)."""
    run = find_run(store, run_id)
    (params,), = store.query("SELECT params FROM runs WHERE run_id = ?", [run_id])
    facts = store.card_facts(run_id)
    card: dict[str, Any] = {
        "run": {"run_id": run_id, "benchmark": run["benchmark"], "model": run["model"],
                "backend": run["backend"], "setting": run["setting"], "status": run["status"],
                "params": json.loads(params) if params else {}},
        "recorded": facts is not None,
    }
    card.update(facts or {})
    card["timing"] = {"started_at": _iso(run["started_at"]), "finished_at": _iso(run["finished_at"])}
    card["counts"] = {k[2:]: run.get(k) for k in ("n_items", "n_responses", "n_not_asked",
                                                  "n_ok", "n_missing", "n_refused",
                                                  "n_infra_failed", "n_truncated",
                                                  "n_judge_failed")}
    sampled = store.query_dicts("SELECT * EXCLUDE (run_id) FROM sample_summary WHERE "
                                "run_id = ?", [run_id]) if run.get("samples", 1) > 1 else []
    if sampled:                     # --samples K: the answers of every sample, by status
        card["sample_counts"] = sampled[0]
    card["tokens"] = {"input": run["input_tokens"], "output": run["output_tokens"],
                      "reasoning": run.get("reasoning_tokens")}
    card["cost_usd"] = float(run["cost_usd"] or 0.0)
    card["served_models"] = served_models(store, run_id)
    card["verdicts"] = dict(store.query(
        "SELECT grader, count(*) FROM verdicts WHERE run_id = ? GROUP BY ALL ORDER BY 1",
        [run_id]))
    card["judge_runs"] = [
        {"run_id": r["run_id"], "model": r["model"], "items": r["n_items"], "ok": r["n_ok"],
         "judge_failed": r["n_judge_failed"], "infra_failed": r["n_infra_failed"],
         "tokens": {"input": r["input_tokens"], "output": r["output_tokens"]},
         "cost_usd": float(r["cost_usd"] or 0.0),
         "served_models": served_models(store, r["run_id"])}
        for (jid,) in store.query("SELECT run_id FROM runs WHERE starts_with(run_id, ?) "
                                  "ORDER BY run_id", [run_id + JUDGE_MARK])
        for r in [store.stored_run(jid)]]
    return card


def served_models(store: Store, run_id: str) -> dict[str, int]:
    """The models the server said answered the run's responses, with counts ({} where the API
    gives none, or on a read-only store of an older mathprobe)."""
    try:
        return dict(store.query(
            "SELECT served_model, count(*) FROM current_responses WHERE run_id = ? AND "
            "served_model IS NOT NULL GROUP BY ALL ORDER BY 2 DESC, 1", [run_id]))
    except duckdb.BinderException:
        return {}


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


def flat(card: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The card as dotted keys -> leaf values (lists of records kept whole)."""
    out: dict[str, Any] = {}
    for k, v in card.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.update(flat(v, key + "."))
        else:
            out[key] = v
    return out


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, a's value, b's value) where two cards differ in what decides a figure: the
    software, data files, setting and prompts, model, generation, sampling, seeds, graders,
    judges, an import's file; not the run's own counts, times or id."""
    fa = {k: v for k, v in flat(a).items() if k.split(".")[0] not in OWN}
    fb = {k: v for k, v in flat(b).items() if k.split(".")[0] not in OWN}
    fa.update({"run.model": a["run"]["model"], "run.setting": a["run"]["setting"]})
    fb.update({"run.model": b["run"]["model"], "run.setting": b["run"]["setting"]})
    for side, card in ((fa, a), (fb, b)):
        side.update({f"run.params.{k}": v for k, v in card["run"]["params"].items()})
        side.pop("data.dir", None)          # where the files lie is not what they hold
    out = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key), fb.get(key)
        if va != vb:
            out.append((key, va, vb))
    return out


def markdown(card: dict[str, Any]) -> str:
    """The card as a Markdown page: one section per part, tables of fields."""
    run = card["run"]
    lines = [f"# Run card: {run['run_id']}", ""]
    if not card.get("recorded"):
        lines += ["> This run was made before run cards: only what the store holds is shown "
                  "(no versions, data hashes, prompts hash, seeds or concurrency).", ""]
    for section, value in card.items():
        if section in ("recorded",):
            continue
        lines.append(f"## {section.replace('_', ' ').capitalize()}")
        lines.append("")
        if isinstance(value, dict):
            rows = flat(value) if value else {}
            if not rows:
                lines += ["(none)", ""]
                continue
            lines += ["| field | value |", "| --- | --- |"]
            lines += [f"| {k} | {_md(v)} |" for k, v in rows.items()]
        elif isinstance(value, list):
            if not value:
                lines += ["(none)", ""]
                continue
            lines += [f"- {_md(v)}" for v in value]
        else:
            lines.append(_md(value))
        lines.append("")
    return "\n".join(lines)


def _md(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text.replace("|", "\\|").replace("\n", " ")


def differences_section(store: Store, runs: list[dict[str, Any]]) -> Section | None:
    """What differs between each run's card and the baseline's, in the fields that decide a
    figure (`differences`), for `compare`; None when every card agrees (or one run)."""
    if len(runs) < 2:
        return None
    base = build(store, runs[0]["run_id"])
    rows = []
    for r in runs[1:]:
        for key, a, b in differences(base, build(store, r["run_id"])):
            rows.append((r["run_id"], key, _shown(a), _shown(b)))
    if not rows:
        return None
    return Section(f"Run cards: what differs from the baseline {runs[0]['run_id']}",
                   ("run", "card field", "baseline", "run"), tuple(rows),
                   "mathprobe card RUN shows a whole card; fields a run records only since "
                   "run cards show as None for runs made before them")


def _shown(value: Any) -> str:
    if value is None:
        return "None"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."
