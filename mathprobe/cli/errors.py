"""`mathprobe errors` (registered on the app by mathprobe.cli.main): why a stored run's answers
are wrong. `mathprobe errors RUN --judge BACKEND:NAME` labels every answer the run's report
grader calls wrong with its benchmark's error taxonomy (rules first, then the labeller model,
every call cached by content); `errors agreement RUN` shows how far its labellers agree;
`errors export-sheet` / `import-sheet` (mathprobe.cli.error_sheets) take labels to people and
back."""
from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from mathprobe.cli import error_sheets
from mathprobe.cli.common import DataDir, Db, ExistingDb, err, progress_bar
from mathprobe.errors import Exit, MathprobeError


class _RunOrCommand(TyperGroup):
    """`mathprobe errors RUN ...` is `mathprobe errors label RUN ...`: a first word that is not
    one of the group's commands names the run to label."""

    def resolve_command(self, ctx, args):
        if args and args[0] not in self.commands:
            return "label", self.commands["label"], args
        return super().resolve_command(ctx, args)


app = typer.Typer(cls=_RunOrCommand, no_args_is_help=True, rich_markup_mode=None,
                  subcommand_metavar="RUN --judge BACKEND:NAME [OPTIONS] | COMMAND [ARGS]...",
                  context_settings={"ignore_unknown_options": True},
                  help="Why a run failed: its wrong answers labelled with the benchmark's error "
                       "taxonomy (mathprobe errors RUN --judge BACKEND:NAME), audited against "
                       "people (export-sheet, import-sheet, agreement).")

LabellerOption = Annotated[str, typer.Option(
    "--judge", help="BACKEND:NAME of the labeller model (openai:MODEL, anthropic:MODEL, "
    "triton:MODEL; an OpenAI-compatible server: openai:MODEL with OPENAI_BASE_URL).")]
Sample = Annotated[int | None, typer.Option(
    "--sample", help="Label a seeded stratified sample of about N wrong answers (the "
    "benchmark's strata; a larger N is a superset); default: every wrong answer.")]
Grader = Annotated[str | None, typer.Option(
    "--grader", help="Whose wrong answers to label (default: the run's report grader).")]


@app.command("label")
def label(
    run_id: Annotated[str, typer.Argument(
        metavar="RUN", help="The stored run whose wrong answers to label.")],
    labeller: LabellerOption,
    db: Db,
    data_dir: DataDir = None,
    grader: Grader = None,
    sample: Sample = None,
    retry_failed: Annotated[bool, typer.Option(
        "--retry-failed", help="Ask again where the labeller's reply had no readable error "
        "type (label_failed) or its call failed.")] = False,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Calls in flight.")] = 16,
    request_timeout: Annotated[float | None, typer.Option(
        "--request-timeout", help="Seconds per attempt.")] = None,
    triton_url: Annotated[str | None, typer.Option(
        "--triton-url", help="HOST:PORT of the Triton gRPC endpoint (triton: labellers).")] = None,
    max_cost: Annotated[float | None, typer.Option(
        "--max-cost", help="Stop asking once the labeller's calls cost this much (USD).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Label the wrong answers of RUN (the same as `mathprobe errors RUN`): rules first (a
    refusal or an empty answer is a Reject Error where the taxonomy has one), then the labeller
    model, asked with the question (and image), the reference answer, the model's whole
    response and the paper's definitions for the first wrong step and `Error type: <name>`;
    every call cached by content (a second call asks nothing). A reply without a readable type
    is label_failed: no label. Writes table error_labels; `mathprobe report` shows the
    figures."""
    from mathprobe.runs import labelling

    c = labelling.check(db, run_id, labeller, data_dir=data_dir, grader=grader, sample=sample,
                        concurrency=concurrency, request_timeout=request_timeout,
                        max_cost=max_cost)
    store = c.store
    with progress_bar() if not as_json else nullcontext():
        result = labelling.label_run(store, c.bench, c.items, c.run, labeller, c.grader,
                                     sample=sample, retry_failed=retry_failed,
                                     concurrency=concurrency, timeout_s=request_timeout,
                                     triton_url=triton_url, max_cost=max_cost)
    if result.get("write_failed"):
        from mathprobe.runs.asking import check_writes
        check_writes(store)
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    else:
        _print_labelled(result)
    if result["not_asked"]:
        raise typer.Exit(Exit.STOPPED_BUDGET)
    if result["label_failed"] or result["infra_failed"]:
        raise typer.Exit(Exit.INCOMPLETE)


def _print_labelled(r: dict[str, Any]) -> None:
    cost = (f"${r['cost_usd']:.4f}" if r["priced"]
            else "unknown (no price for this model in the price table)")
    sample = (f" (a seeded stratified sample of {r['chosen']}, --sample {r['sample']})"
              if r["sample"] is not None else "")
    lines: list[str | tuple[str, str]] = [
        (f"run {r['labelled_run']}: error types by {r['labeller']}", "bold"),
        f" (its calls: run {r['labeller_run']})\n",
        f"{r['wrong']} answers wrong under grader {r['grader']}, {r['chosen']} to label{sample}: "
        f"{r['labelled']} labelled ({r['by_rule']} by rule, {r['by_model']} by the labeller), "
        f"{r['label_failed']} label_failed (no readable type in the reply), "
        f"{r['infra_failed']} failed calls\n",
        f"calls: {r['asked']} sent now, {r['cached_now']} answered from the cache now; tokens "
        f"{r['input_tokens']} in, {r['output_tokens']} out; cost {cost}",
    ]
    Console().print(Text.assemble(*lines), soft_wrap=True)
    for why, n in r["unlabelled"].items():
        err.print(Text(f"{n} wrong answer(s) not labelled: {why}", style="yellow"), soft_wrap=True)
    if r["not_asked"]:
        err.print(Text(r["stopped"], style="yellow"), soft_wrap=True)
    if r["label_failed"] or r["infra_failed"]:
        err.print(Text("no readable type is no label: ask those again with --retry-failed",
                       style="yellow"), soft_wrap=True)


@app.command("agreement")
def agreement(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The labelled run.")],
    db: ExistingDb,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """How far the run's labellers (models, people's sheets) agree on the error types of the
    answers both labelled: agreement and Cohen's kappa overall and per type, and the confusion
    table (views error_labels_paired_agreement, _by_type, _confusion)."""
    from mathprobe.cli.common import open_existing
    from mathprobe.reports import error_render
    from mathprobe.reports.error_analysis import pair_agreements
    from mathprobe.reports.selection import find_run

    store = open_existing(db)
    find_run(store, run_id)
    pairs = pair_agreements(store, run_id)
    if as_json:
        sys.stdout.write(json.dumps(pairs, indent=2, default=str) + "\n")
        return
    if not pairs:
        raise MathprobeError(f"run {run_id} has no two labellers with answers in common: label "
                             "it with another model, or import a people's sheet (mathprobe "
                             "errors import-sheet)")
    console = Console()
    for p in pairs:
        for part in error_render.agreement(p):
            console.print(part)


app.command("export-sheet")(error_sheets.export_sheet)
app.command("import-sheet")(error_sheets.import_sheet)
