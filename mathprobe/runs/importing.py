"""`mathprobe import`: responses produced elsewhere (the benchmark authors' result format, or
another toolkit's files: `Benchmark.result_formats`), stored and graded through the same steps
as a live run; verdicts the file carries (the authors' own judge's, VLMEvalKit's `hit`) are
stored as they are, under the grader name the reader gives them.

A row the reader cannot import (an unknown problem, one that contradicts the data) is counted
and listed, not a stop at the first one; items the file defines itself (not in the local data)
are stored with the reference rows their figures need (`Benchmark.imported_tables`). What the
import was (format, file and its SHA-256, what the file says of its source, the rows left out)
goes into the run card.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from mathprobe.contract import Benchmark, Dataset, OfficialRow, ResultFile
from mathprobe.errors import DataError, MathprobeError
from mathprobe.items import Completion, Request
from mathprobe.runs import card
from mathprobe.runs.grading import grade_run
from mathprobe.runs.loading import prepare
from mathprobe.store import RunSpec, Store

# a failed call as the other tool recorded it: stored as a failure, never graded wrong
FAILED = "infra_failed"
SKIPPED_SHOWN = 20          # skipped rows the card keeps (all are counted)


def read_results(bench: Benchmark, fmt: str, file: Path, dataset: Dataset) -> ResultFile:
    """The file read by the benchmark's reader of `fmt`, as a ResultFile."""
    formats = bench.result_formats()
    if fmt not in formats:
        raise MathprobeError(f"--format {fmt!r}: {bench.title} results are read in "
                             f"{', '.join(sorted(formats))}")
    got = formats[fmt](file, dataset)
    if not isinstance(got, ResultFile):
        got = ResultFile(list(got))
    rows = [r if isinstance(r, OfficialRow) else OfficialRow(*r) for r in got.rows]
    return ResultFile(rows, list(got.skipped), got.default_verdicts, dict(got.source))


def import_results(store: Store, bench: Benchmark, data_dir: Path, file: Path, run_id: str,
                   fmt: str = "official") -> dict[str, Any]:
    """Store and grade a response set produced elsewhere, in the format `fmt`.

    A row without a response is stored as `missing` (counted wrong, as the authors count it);
    one the other tool recorded as a failed call (`OfficialRow.failure`) as `infra_failed`,
    never graded.
    Importing the same file again adds nothing. Returns counts, and `skipped` (the rows left
    out, each a `Skipped`).
    """
    file = Path(file)
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file")
    dataset = prepare(store, bench, data_dir)
    result = read_results(bench, fmt, file, dataset)
    rows: list[OfficialRow] = list(result.rows)
    if not rows:
        first = "; ".join(s.line() for s in result.skipped[:3])
        raise DataError(file, "no row could be imported" + (f" ({len(result.skipped)} left "
                        f"out: {first}{' ...' if len(result.skipped) > 3 else ''})"
                        if result.skipped else ""))
    known = dataset.by_id()
    own = [r.item for r in rows if r.item.item_id not in known]
    if own:
        store.add_imported_items(own, bench.imported_tables(own))
    carried = sorted({g for r in rows for g in r.verdicts})
    params: dict[str, Any] = {}
    if fmt != "official":
        params["format"] = fmt
    if carried:
        params["imported_verdicts" if result.default_verdicts else "carried_verdicts"] = carried
    model = f"import:{file.name}"
    store.start_run(RunSpec(run_id, bench.name, model, "import", fmt, params), n_items=len(rows))
    store.set_card(run_id, card.import_facts(bench, data_dir, file, fmt, result.source,
                                             len(rows), len(own), result.skipped, SKIPPED_SHOWN))
    new = store.append_responses(run_id, [_stored(r, model) for r in rows])
    if carried:
        response_ids = dict(store.query("SELECT item_id, response_id FROM current_responses "
                                        "WHERE run_id = ? AND status <> ?", [run_id, FAILED]))
        for grader in carried:
            store.write_verdicts(run_id, grader, [
                (r.item.item_id, response_ids[r.item.item_id], *r.verdicts[grader])
                for r in rows if grader in r.verdicts and r.verdicts[grader][1] is not None
                and r.item.item_id in response_ids])
    graded = grade_run(store, bench, dataset, run_id, items={r.item.item_id: r.item for r in rows})
    store.finish_run(run_id, "incomplete" if any(r.failure for r in rows) else "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for r in rows if r.response is None and not r.failure),
            "failed": sum(1 for r in rows if r.failure),
            "from_file": len(own), "skipped": list(result.skipped),
            **{f"graded_{g}": n for g, n in graded.items()},
            **{f"imported_{g}": sum(1 for r in rows if g in r.verdicts) for g in carried}}


def import_official(store: Store, bench: Benchmark, data_dir: Path, file: Path,
                    run_id: str) -> dict[str, Any]:
    """`import_results` of a file in the benchmark authors' own result format."""
    return import_results(store, bench, data_dir, file, run_id, "official")


def _stored(row: OfficialRow, model: str) -> tuple[str, str, Completion]:
    request = Request(item_id=row.item.item_id, model=model, prompt=row.item.question)
    if row.failure:
        completion = Completion(text=None, status=FAILED, attempts=0,
                                error=f"the file records a failed call: {row.failure}")
    elif row.response is None:
        completion = Completion(text=None, status="missing", attempts=0,
                                error="no response in the file")
    else:
        completion = Completion(text=row.response, status="ok", attempts=0)
    return row.item.item_id, request.request_hash, completion

