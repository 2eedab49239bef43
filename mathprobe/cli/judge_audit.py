"""`mathprobe judge-audit` (registered on the app by mathprobe.cli.main): two graders of a
stored run against each other (agreement, Cohen's kappa, the confusion table, the answers they
disagree on, to read), optionally the same judge asked twice (--repeat 2: its own instability);
or a benchmark's graders against reference verdicts (CMMaTH: GPT-4's on the GradeGPT sample)."""
from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mathprobe.cli.common import DataDir, Db
from mathprobe.cli.judge import Repeat
from mathprobe.errors import MathprobeError


def judge_audit(
    db: Db,
    data_dir: DataDir = None,
    run_id: Annotated[str | None, typer.Option(
        "--run", help="Audit two graders of this stored run against each other.")] = None,
    graders: Annotated[str | None, typer.Option(
        "--graders", help="With --run: the two graders, A,B (default: the run's reported "
        "grader against each other one).")] = None,
    judge_spec: Annotated[str | None, typer.Option(
        "--judge", help="BACKEND:NAME of a judge to audit as well (alone and as the cascade); "
        "with --run and --repeat N: the judge asked N times, its askings against each other.")] = None,
    repeat: Repeat = 1,
    show: Annotated[int, typer.Option("--show", help="With --run: list at most this many of the "
                                      "answers the graders disagree on.")] = 20,
    audit_id: Annotated[str, typer.Option("--audit-id", help="The audit's own run id in the "
                                          "store (its rule verdicts and judge calls); reuse "
                                          "it to resume.")] = "gradegpt-sample",
    concurrency: Annotated[int, typer.Option("--concurrency", help="The judge's requests in "
                                             "flight at most.")] = 16,
    limit: Annotated[int | None, typer.Option("--limit", help="Judge only the first N "
                                                 "records.")] = None,
    benchmark: Annotated[str | None, typer.Option(
        "--benchmark", help="The benchmark whose judge to audit (default: the one with an "
        "audit).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Measure graders: with --run, two graders of a stored run against each other (agreement,
    Cohen's kappa, the confusion table, and the answers they disagree on, to read; views
    grader_agreement, grader_disagreements); without, a benchmark's graders against reference
    verdicts (CMMaTH: GPT-4's on the GradeGPT judgment sample: the rule stage, and with --judge
    a judge backend and the cascade; view judge_agreement)."""
    from mathprobe.runs import preflight

    preflight.check_counts(limit=limit, concurrency=concurrency)
    if run_id is not None:
        audit_run(db, run_id, graders, judge_spec, repeat, show, data_dir, concurrency, as_json)
        return
    if graders is not None:
        raise MathprobeError("--graders goes with --run RUN")
    _audit_sample(db, data_dir, judge_spec, repeat, audit_id, concurrency, limit, benchmark,
                  as_json)


def _audit_sample(db, data_dir, judge_spec, repeat, audit_id, concurrency, limit, benchmark,
                  as_json) -> None:
    from mathprobe import registry
    from mathprobe.runs import judging, preflight
    from mathprobe.store import open_store

    bench = registry.with_judge_audit(preflight.benchmark(benchmark).name if benchmark else None)
    if judge_spec is not None:
        preflight.check_judge(bench, judge_spec)
    elif repeat > 1:
        raise MathprobeError("--repeat goes with --judge BACKEND:NAME")
    preflight.store_path(db)
    preflight.data(bench, data_dir)
    store = open_store(db)
    audit = judging.judge_of(bench).audit
    rows = audit(store, registry.resolve_data_dir(data_dir), audit_id=audit_id,
                 judge=judge_spec, concurrency=concurrency, limit=limit)
    for k in range(2, repeat + 1):          # the same judge again: its own rows
        again = judging.with_repeat(judge_spec, k)
        rows += [r for r in audit(store, registry.resolve_data_dir(data_dir),
                                  audit_id=audit_id, judge=again,
                                  concurrency=concurrency, limit=limit)
                 if r["grader"] != "rules"]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2, default=str) + "\n")
        return
    table = Table(title=f"{bench.title} graders vs reference verdicts (view judge_agreement, "
                        f"audit {audit_id})", title_justify="left")
    cols = {"grader": "grader", "n": "n", "undecided_share": "undecided",
            "agreement": "agree", "kappa": "kappa", "balanced_accuracy": "bal.acc",
            "precision_yes": "P(Yes)", "recall_yes": "R(Yes)", "tp": "tp", "fp": "fp",
            "tn": "tn", "fn": "fn"}
    for c, label in cols.items():
        table.add_column(label, justify="left" if c == "grader" else "right")
    for r in rows:
        table.add_row(*("-" if r.get(c) is None else
                        f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols))
    Console().print(table)


def audit_run(db: str, run_id: str, graders: str | None, judge_spec: str | None, repeat: int,
              show: int, data_dir, concurrency: int, as_json: bool) -> None:
    """Two graders of a stored run against each other; with --judge and --repeat N, the judge
    asked N times (judging the run as `mathprobe judge` does), each asking against the first."""
    from mathprobe import registry
    from mathprobe.reports import graders as grading
    from mathprobe.reports.summary import default_grader, find_run
    from mathprobe.runs import check_backend, judging, preflight
    from mathprobe.store import open_store

    preflight.store_path(db)
    store = open_store(db)
    run = find_run(store, run_id)
    bench = registry.get(run["benchmark"])
    pairs: list[tuple[str, str]] = []
    if judge_spec is not None:
        preflight.check_judge(bench, judge_spec)
        check_backend(judging.backend_spec(judge_spec))
        items = bench.load(preflight.data(bench, data_dir)).by_id()
        specs = [judging.with_repeat(judge_spec, k) for k in range(1, max(repeat, 1) + 1)]
        for spec in specs:
            judging.judge_run(store, bench, items, run_id, spec, concurrency=concurrency)
        pairs = [(f"judge:{specs[0]}", f"judge:{s}") for s in specs[1:]]
        if not pairs:
            pairs = [(judging.judge_of(bench).rules_grader, f"cascade:{specs[0]}")]
    elif repeat > 1:
        raise MathprobeError("--repeat goes with --judge BACKEND:NAME")
    have = grading.graders_of(store, [run_id])[run_id]
    if graders is not None:
        names = [g.strip() for g in graders.split(",") if g.strip()]
        if len(names) != 2:
            raise MathprobeError(f"--graders {graders!r}: name two graders, A,B")
        pairs = [(names[0], names[1])]
    elif not pairs:
        reported = default_grader(store, run_id, bench)
        pairs = [(reported, g) for g in sorted(have) if g != reported]
    for a, b in pairs:
        for g in (a, b):
            if g not in have:
                raise MathprobeError(f"run {run_id} has no verdicts of grader {g!r}; its "
                                     f"graders: {', '.join(sorted(have)) or 'none'}")
    out = []
    for a, b in pairs:
        row = grading.agreement(store, run_id, a, b) or {"n_a": have[a], "n_b": have[b],
                                                          "n_both": 0}
        out.append({"run_id": run_id, "grader_a": a, "grader_b": b, **row,
                    "disagreements": grading.disagreements(store, run_id, a, b, limit=show)})
    if as_json:
        sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
        return
    for entry in out:
        _print_pair(entry)


def _print_pair(e: dict[str, Any]) -> None:
    console = Console()
    a, b = e["grader_a"], e["grader_b"]
    if not e["n_both"]:
        console.print(f"run {e['run_id']}: {a} ({e['n_a']} answers) and {b} ({e['n_b']}) "
                      "decided no answer in common", soft_wrap=True)
        return
    kappa = "n/a (both call every answer the same)" if e["kappa"] is None else f"{e['kappa']:.3f}"
    console.print(Text.assemble(
        (f"run {e['run_id']}: {a} vs {b}", "bold"),
        f"\n{a} decided {e['n_a']} answers, {b} {e['n_b']}; both {e['n_both']}: agreement "
        f"{e['agreement']:.1%}, Cohen's kappa {kappa}; accuracy on those {e['accuracy_a']:.1%} "
        f"vs {e['accuracy_b']:.1%}"), soft_wrap=True)
    table = Table(title="confusion table (answers both decided)", title_justify="left")
    table.add_column("")
    table.add_column(f"{b}: right", justify="right")
    table.add_column(f"{b}: wrong", justify="right")
    table.add_row(f"{a}: right", str(e["both_right"]), str(e["only_a_right"]))
    table.add_row(f"{a}: wrong", str(e["only_b_right"]), str(e["both_wrong"]))
    console.print(table)
    if e["disagreements"]:
        shown = Table(title=f"answers they disagree on ({len(e['disagreements'])} shown, "
                            f"of {e['only_a_right'] + e['only_b_right']}): read them, neither "
                            "side is taken to be right", title_justify="left")
        for col in ("item", "reference", a, b, "response (end)"):
            shown.add_column(col, overflow="fold")
        for d in e["disagreements"]:
            shown.add_row(d["item_id"], " ".join(str(d["gold"] or "").split())[:40],
                          f"{'right' if d['correct_a'] else 'wrong'} ({d['extracted_a']})",
                          f"{'right' if d['correct_b'] else 'wrong'} ({d['extracted_b']})",
                          " ".join((d["response"] or "").split())[-160:])
        console.print(shown)
