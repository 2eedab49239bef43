"""`mathprobe judge` (registered on the app by mathprobe.cli.main): re-judge a stored run with
any judge model, nothing asked of the evaluated model again; every judge call cached by content;
what the judge decided, failed on and cost. `judge-audit` is mathprobe.cli.judge_audit."""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from mathprobe.cli.common import Batch, DataDir, Db, err
from mathprobe.errors import Exit, MathprobeError

JudgeOption = Annotated[str, typer.Option(
    "--judge", help="BACKEND:NAME of the judge (openai:MODEL, anthropic:MODEL, triton:MODEL; an "
    "OpenAI-compatible server such as vLLM: openai:MODEL with OPENAI_BASE_URL), options after "
    "'#' (e.g. #prompt=gradegpt).")]
Repeat = Annotated[int, typer.Option(
    "--repeat", help="Ask the same judge this many times (its 2nd, 3rd... asking are runs and "
    "graders of their own, `#repeat=N`, answered from no cache), to show its own instability.")]


def judge(
    run_id: Annotated[str, typer.Argument(help="The stored run to judge.")],
    judge_spec: JudgeOption,
    db: Db,
    data_dir: DataDir = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Judge calls in flight.")] = 16,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Ask again where the "
                                               "judge's call failed or gave no verdict.")] = False,
    request_timeout: Annotated[float | None, typer.Option("--request-timeout",
                                                             help="Seconds per attempt.")] = None,
    triton_url: Annotated[str | None, typer.Option("--triton-url", help="HOST:PORT of the "
                                                      "Triton gRPC endpoint (triton: judges).")] = None,
    repeat: Repeat = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    batch: Batch = False,
) -> None:
    """Judge a stored run again (or for the first time) with BACKEND:NAME: the answers its
    benchmark's judge asks about (CMMaTH: those the rules left undecided; WE-MATH: those the
    official regex finds no letter in) go to the judge, every call cached by content (nothing
    is asked twice, nothing is asked of the evaluated model); writes graders judge:<judge> and
    cascade:<judge>, and prints what the judge decided, failed on and cost."""
    from mathprobe import registry
    from mathprobe.reports.summary import find_run
    from mathprobe.runs import check_backend, grade_run, judging, labelling, preflight
    from mathprobe.store import open_store

    preflight.check_counts(concurrency=concurrency, request_timeout=request_timeout)
    if repeat < 1:
        raise MathprobeError(f"--repeat {repeat}: give 1 or more")
    preflight.store_path(db)
    store = open_store(db)
    run = find_run(store, run_id)
    if judging.JUDGE_RUN_MARK in run_id or labelling.LABEL_RUN_MARK in run_id:
        raise MathprobeError(f"{run_id} is a judge's or an error labeller's own run; name the "
                             "run it judged or labelled")
    bench = registry.get(run["benchmark"])
    preflight.check_judge(bench, judge_spec)
    if batch:
        preflight.check_batch(judging.backend_spec(judge_spec), option="--judge")
    check_backend(judging.backend_spec(judge_spec))        # the API key, before anything runs
    dataset = bench.load(preflight.data(bench, data_dir))
    grade_run(store, bench, dataset, run_id)               # a grader added since: no model asked
    items = dataset.by_id()
    results = []
    with _notes_shown(batch):
        for k in range(1, repeat + 1):
            spec = judging.with_repeat(judge_spec, judging.repeat_of(judge_spec) + k - 1)
            result = judging.judge_run(store, bench, items, run_id, spec,
                                       retry_failed=retry_failed, concurrency=concurrency,
                                       timeout_s=request_timeout, triton_url=triton_url,
                                       batch=batch)
            if result.get("write_failed"):
                from mathprobe.runs.asking import check_writes
                check_writes(store)
            results.append({"judge": spec, **result,
                            **_costs(store, judging.judge_run_id(run_id, spec))})
    repeats = []
    if repeat > 1:
        from mathprobe.reports.graders import agreement

        first = f"judge:{results[0]['judge']}"
        repeats = [{"grader_a": first, "grader_b": f"judge:{r['judge']}",
                    **(agreement(store, run_id, first, f"judge:{r['judge']}") or {})}
                   for r in results[1:]]
    out = {"run_id": run_id, "benchmark": bench.name,
           "rules_grader": judging.judge_of(bench).rules_grader,
           "judges": results, "repeats": repeats}
    if as_json:
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
    else:
        _print_judged(out)
    if any(r["judge_failed"] or r["infra_failed"] for r in results):
        raise typer.Exit(Exit.INCOMPLETE)


@contextmanager
def _notes_shown(shown: bool):
    """The run's notes on stderr while the block runs (a batch takes minutes to hours: what it
    submitted, how its batches stand, what it asks again)."""
    from mathprobe.runs import progress

    def listener(event: str, _run_id: str, **data: Any) -> None:
        if event == "note":
            err.print(Text(data["message"], style="dim"), soft_wrap=True)

    if shown:
        progress.subscribe(listener)
    try:
        yield
    finally:
        progress.unsubscribe(listener)


def _costs(store, jrun: str) -> dict[str, Any]:
    row = store.query_dicts("SELECT n_ok, n_judge_failed, n_infra_failed, input_tokens, "
                            "output_tokens, cost_usd FROM run_summary WHERE run_id = ?", [jrun])[0]
    from mathprobe.backends import prices

    model = store.query("SELECT model FROM runs WHERE run_id = ?", [jrun])[0][0]
    return {"judge_run": jrun, "input_tokens": row["input_tokens"],
            "output_tokens": row["output_tokens"], "cost_usd": float(row["cost_usd"] or 0.0),
            "priced": prices.is_priced(model)}


def _print_judged(out: dict[str, Any]) -> None:
    console = Console()
    for r in out["judges"]:
        cost = (f"${r['cost_usd']:.4f}" if r["priced"]
                else "unknown (no price for this model in the price table)")
        console.print(Text.assemble(
            (f"run {out['run_id']} judged by {r['judge']}", "bold"),
            f" (its calls: run {r['judge_run']})\n",
            f"{r['asked_about']} answers the judge is asked about ({out['rules_grader']} decided "
            f"the other {r['rules']}): {r['judged']} verdicts, {r['judge_failed']} judge_failed "
            f"(no verdict in the reply), {r['infra_failed']} failed calls\n",
            f"calls: {r['asked']} sent now, {r['cached_now']} answered from the cache now, "
            f"{r['cached']} in all from the cache; tokens {r['input_tokens']} in, "
            f"{r['output_tokens']} out; cost {cost}\n",
            f"graders: judge:{r['judge']}, cascade:{r['judge']} (the rules where the judge was "
            "not asked)"), soft_wrap=True)
        if r["judge_failed"] or r["infra_failed"]:
            err.print(Text("no verdict is a verdict: re-ask those with --retry-failed",
                           style="yellow"), soft_wrap=True)
    for a in out["repeats"]:
        if a.get("n_both"):
            kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.3f}"
            console.print(f"{a['grader_a']} vs {a['grader_b']}: agree on {a['agreement']:.1%} of "
                          f"{a['n_both']} answers, kappa {kappa}; "
                          f"{a['only_a_right'] + a['only_b_right']} answers judged differently",
                          soft_wrap=True)
