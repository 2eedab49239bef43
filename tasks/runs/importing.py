"""`mathprobe import`: responses produced elsewhere, in the benchmark authors' result format,
stored and graded through the same steps as a live run; verdicts the file carries (e.g. the
authors' own judge's) are stored as they are, under the grader name the benchmark gives them."""
from __future__ import annotations

from pathlib import Path

from mathprobe.tasks.contract import Benchmark, OfficialRow
from mathprobe.tasks.errors import MathprobeError
from mathprobe.tasks.items import Completion, Request
from mathprobe.tasks.runs.grading import grade_run
from mathprobe.tasks.runs.loading import prepare
from mathprobe.tasks.store import RunSpec, Store


def import_official(store: Store, bench: Benchmark, data_dir: Path, file: Path,
                    run_id: str) -> dict[str, int]:
    """Store and grade a response set produced elsewhere, in the benchmark authors' format.

    A row without a response is stored as `missing` (the authors count it wrong). Importing the
    same file again adds nothing. The graders of verdicts the file carries are listed in the
    run's params (`imported_verdicts`); reports default to the first of them.
    """
    file = Path(file)
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file")
    dataset = prepare(store, bench, data_dir)
    rows = [r if isinstance(r, OfficialRow) else OfficialRow(*r)
            for r in bench.read_official_results(file, dataset)]
    imported = sorted({g for r in rows for g in r.verdicts})
    model = f"import:{file.name}"
    store.start_run(RunSpec(run_id, bench.name, model, "import", "official",
                            {"imported_verdicts": imported} if imported else {}),
                    n_items=len(rows))
    stored = []
    for row in rows:
        item, text = row.item, row.response
        request = Request(item_id=item.item_id, model=model, prompt=item.question)
        status = "ok" if text is not None else "missing"
        stored.append((item.item_id, request.request_hash,
                       Completion(text=text, status=status, attempts=0,
                                  error=None if text is not None else "no response in the file")))
    new = store.append_responses(run_id, stored)
    if imported:
        response_ids = dict(store.query("SELECT item_id, response_id FROM current_responses "
                                        "WHERE run_id = ?", [run_id]))
        for grader in imported:
            store.write_verdicts(run_id, grader, [
                (r.item.item_id, response_ids[r.item.item_id], *r.verdicts[grader])
                for r in rows if grader in r.verdicts and r.verdicts[grader][1] is not None])
    graded = grade_run(store, bench, dataset, run_id, items={r.item.item_id: r.item for r in rows})
    store.finish_run(run_id, "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for r in rows if r.response is None),
            **{f"graded_{g}": n for g, n in graded.items()},
            **{f"imported_{g}": sum(1 for r in rows if g in r.verdicts) for g in imported}}
