"""`mathprobe import`: responses produced elsewhere (the benchmark authors' result format, or
another toolkit's files: `Benchmark.result_formats`), stored and graded through the same steps
as a live run; verdicts the file carries (the authors' own judge's, VLMEvalKit's `hit`) are
stored as they are, under the grader name the reader gives them.

The file is read and checked whole before the store is touched (`read_import`): a file that
is not a result file, or holds no row, is one line and leaves no store behind (nor a change to
an existing one). A row the reader cannot import (an unknown problem, one that contradicts the
data) is counted and listed, not a stop at the first one; a row kept whose answer the question
cannot take (WE-MATH: a letter none of its options) is graded as the authors' script grades it
and flagged with its row (`Benchmark.answer_outside`). Items the file defines itself (not in
the local data) are stored with the reference rows their figures need
(`Benchmark.imported_tables`). What the import was (format, file and its SHA-256, what the file
says of its source, the rows left out and flagged) goes into the run card.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mathprobe.contract import Benchmark, Dataset, OfficialRow, ResultFile, Skipped
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
    # (a plain (item, response) pair is a row without verdicts)
    rows = [r if isinstance(r, OfficialRow) else OfficialRow(*r) for r in got.rows]
    return ResultFile(rows, list(got.skipped), got.default_verdicts, dict(got.source))


def official_rows(result: ResultFile) -> list[OfficialRow]:
    """The rows of a ResultFile that `read_results` made: each one an OfficialRow."""
    return [r for r in result.rows if isinstance(r, OfficialRow)]


@dataclass
class ReadImport:
    """A result file read and checked, before any store is touched: the data it is about, its
    rows, those left out (`result.skipped`) and those kept but flagged."""
    file: Path
    fmt: str
    dataset: Dataset
    result: ResultFile
    flagged: list[Skipped] = field(default_factory=list)


def read_import(bench: Benchmark, data_dir: Path, file: Path, fmt: str = "official"
                ) -> ReadImport:
    """Read `file` in the format `fmt` against the benchmark's data; a file that does not exist,
    is not a result file or holds no row to import is a MathprobeError / DataError (one line)."""
    file = Path(file)
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file" if not file.exists() else
                             f"{file}: not a file")
    dataset = bench.load(data_dir)
    result = read_results(bench, fmt, file, dataset)
    if not result.rows:
        first = "; ".join(s.line() for s in result.skipped[:3])
        raise DataError(file, "no row could be imported" + (f" ({len(result.skipped)} left "
                        f"out: {first}{' ...' if len(result.skipped) > 3 else ''})"
                        if result.skipped else ""))
    flagged = [Skipped(r.row or 0, r.item.item_id, why) for r in official_rows(result)
               if not r.failure and (why := bench.answer_outside(r.item, r.response))]
    return ReadImport(file, fmt, dataset, result, flagged)


def import_results(store: Store, bench: Benchmark, data_dir: Path, file: Path, run_id: str,
                   fmt: str = "official", read: ReadImport | None = None) -> dict[str, Any]:
    """Store and grade a response set produced elsewhere, in the format `fmt` (`read`: the file
    already read by `read_import`, as the command line does before it opens the store).

    A row without a response is stored as `missing` (counted wrong, as the authors count it);
    one the other tool recorded as a failed call (`OfficialRow.failure`) as `infra_failed`,
    never graded.
    Importing the same file again adds nothing. Returns counts, `skipped` (the rows left
    out) and `flagged` (the rows kept whose answer the question cannot take), each a `Skipped`.
    """
    read = read or read_import(bench, data_dir, file, fmt)
    file, result = read.file, read.result
    dataset = prepare(store, bench, data_dir, read.dataset)
    rows = official_rows(result)
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
                                             len(rows), len(own), result.skipped, SKIPPED_SHOWN,
                                             read.flagged))
    new = store.append_responses(run_id, [_stored(r, model) for r in rows])
    if carried:
        response_ids = dict(store.query("SELECT item_id, response_id FROM current_responses "
                                        "WHERE run_id = ? AND status <> ?", [run_id, FAILED]))
        for grader in carried:
            store.write_verdicts(run_id, grader, [
                (r.item.item_id, response_ids[r.item.item_id], extracted, correct)
                for r in rows if grader in r.verdicts and r.item.item_id in response_ids
                for extracted, correct in [r.verdicts[grader]] if correct is not None])
    graded = grade_run(store, bench, dataset, run_id, items={r.item.item_id: r.item for r in rows})
    store.finish_run(run_id, "incomplete" if any(r.failure for r in rows) else "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for r in rows if r.response is None and not r.failure),
            "failed": sum(1 for r in rows if r.failure),
            "from_file": len(own), "skipped": list(result.skipped), "flagged": read.flagged,
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

