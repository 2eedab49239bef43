"""`mathprobe card`: a run's card, what it takes to reproduce its figures, as Markdown or JSON
(`mathprobe export` writes it beside every export)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from mathprobe.cli.common import err, open_existing, reads


def card(
    run_id: Annotated[str, typer.Argument(help="The run whose card to show.")],
    db: Annotated[str, typer.Option("--db", help="DuckDB file, or a DuckLake store.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the card as JSON (default: "
                                          "Markdown).")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Write it to this file instead "
                                                "of printing it.")] = None,
) -> None:
    """A run's card: what it takes to reproduce its figures (versions, data files and hashes,
    setting and prompts hash, model and what the server said it was, generation settings,
    graders and judges, seeds, concurrency, start and end, tokens, cost, counts by status)."""
    from mathprobe.reports import card as run_card
    from mathprobe.runs import output_paths

    if out is not None:
        output_paths.output_file("--out", out, reads(db))
    text = card_text(run_card.build(open_existing(db), run_id), as_json)
    if out is None:
        sys.stdout.write(text)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        err.print(f"wrote the card of {run_id} to {out}")


def card_text(card: dict, as_json: bool) -> str:
    """The card as JSON or Markdown, as printed and as written to a file."""
    from mathprobe.reports import card as run_card

    return (json.dumps(card, indent=2, ensure_ascii=False, default=str) if as_json
            else run_card.markdown(card)) + "\n"
