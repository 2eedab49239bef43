"""The WE-MATH authors' leaderboard submission for a run made (or imported) here: "your result
JSON file and score CSV file" (We-Math/We-Math README, read at commit a57a0e8 of 2025-08-22,
with evaluation/four_dimensional_metrics.py and evaluation/accuracy.py).

* `<run>.json`: the result JSON their scripts read (`json.load` -> a list of records): every
  testmini row of the run's answered problems, with its fields as testmini.json has them and
  the model's text in `response` ("" where there was none: their extraction reads "" as no
  answer, as a missing response counts wrong). Problems with a failed call are left out whole
  (their merge counts an incomplete problem in no class; mathprobe leaves it out of every
  figure).
* `four_dimensional_metrics.csv` and `accuracy.csv`: the two score tables their scripts write
  (`to_csv(index=False)`): 'Model', then 'Score (Strict)' ... 'RoteMemorization (Loose)' as
  '14.00%' and '58.86% (309)'; and 'One-step(S1)' ... the 12 categories. The figures are those
  their scripts compute on that JSON: the official extraction, and N = 525 as they hard-code it
  (equal to mathprobe's on the whole testmini; `mathprobe export` warns on a subset).

Importing the JSON back (`mathprobe import --format official`) gives the same figures.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from mathprobe.benchmarks.wemath.data.dataset import load
from mathprobe.benchmarks.wemath.data.vlmevalkit_results import (
    FOUR_DIM_COLUMNS,
    _safe,
    n525_notes,
    score_row,
)
from mathprobe.errors import MathprobeError
from mathprobe.store import Store

GRADER = "official"             # what their scripts compute: the authors' extraction
ACCURACY_LEAD = ("One-step(S1)", "Two-step(S2)", "Three-step(S3)")


def result_rows(store: Store, run_id: str, data_dir: Path) -> tuple[list[dict], int]:
    """(the result JSON's records in testmini's order, problems left out for a failed call)."""
    complete = {p for (p,) in store.query(
        "SELECT problem_id FROM wemath_problem_verdicts WHERE run_id = ? AND grader = ? "
        "AND complete", [run_id, GRADER])}
    asked = {p for (p,) in store.query(
        "SELECT problem_id FROM wemath_problem_coverage WHERE run_id = ?", [run_id])}
    answers = dict(store.query(
        "SELECT item_id, response FROM current_responses WHERE run_id = ? AND status IN "
        "('ok', 'refused', 'missing')", [run_id]))
    rows = [{**item.payload, "response": answers.get(item.item_id) or ""}
            for item in load(data_dir).items if item.group_id in complete]
    return rows, len(asked - complete)


def write_leaderboard(store: Store, run_id: str, grader: str | None, out_dir: Path,
                      data_dir: Path) -> tuple[list[Path], list[str]]:
    """Write the submission's three files into `out_dir`; returns their paths and notes."""
    if grader not in (None, GRADER):
        raise MathprobeError(f"--grader {grader!r}: the leaderboard's files are what the authors' "
                             f"scripts compute on the responses, the {GRADER!r} grader")
    rows, left_out = result_rows(store, run_id, data_dir)
    if not rows:
        raise MathprobeError(f"run {run_id!r} has no WE-MATH problem answered whole")
    (model,), = store.query("SELECT model FROM runs WHERE run_id = ?", [run_id])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result = out / f"{_safe(run_id)}.json"
    result.write_text(json.dumps(rows, ensure_ascii=False, indent=4), encoding="utf-8")
    row = score_row(store, run_id, GRADER, model, 525)
    four = out / "four_dimensional_metrics.csv"
    _csv(four, ["Model", *FOUR_DIM_COLUMNS], row)
    acc = out / "accuracy.csv"
    _csv(acc, ["Model", *ACCURACY_LEAD, *[k for k in row if k not in FOUR_DIM_COLUMNS
                                          and k not in ACCURACY_LEAD and k != "Model"]], row)
    notes = n525_notes(store, run_id, GRADER)
    if left_out:
        notes.append(f"{left_out} problem(s) of run {run_id} have a failed or unasked question "
                     "and are not in the result JSON: re-drive them (--retry-failed) before "
                     "submitting")
    return [result, four, acc], notes


def _csv(path: Path, columns: list[str], row: dict[str, str]) -> None:
    """As pandas' to_csv(index=False) writes one row: minimal quoting, '\\n' line ends."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        w.writerow([row[c] for c in columns])
