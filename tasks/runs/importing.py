"""`mathprobe import`: responses produced elsewhere, in the benchmark authors' result format,
stored and graded through the same steps as a live run."""
from __future__ import annotations

from pathlib import Path

from tasks.contract import Benchmark
from tasks.errors import MathprobeError
from tasks.items import Completion, Request
from tasks.runs.grading import grade_run
from tasks.runs.loading import prepare
from tasks.store import RunSpec, Store


def import_official(store: Store, bench: Benchmark, data_dir: Path, file: Path,
                    run_id: str) -> dict[str, int]:
    """Store and grade a response set produced elsewhere, in the benchmark authors' format.

    A row without a response is stored as `missing` (the authors count it wrong). Importing the
    same file again adds nothing.
    """
    file = Path(file)
    if not file.is_file():
        raise MathprobeError(f"{file}: no such file")
    dataset = prepare(store, bench, data_dir)
    rows = bench.read_official_results(file, dataset)
    model = f"import:{file.name}"
    store.start_run(RunSpec(run_id, bench.name, model, "import", "official", {}),
                    n_items=len(rows))
    stored = []
    for item, text in rows:
        request = Request(item_id=item.item_id, model=model, prompt=item.question)
        status = "ok" if text is not None else "missing"
        stored.append((item.item_id, request.request_hash,
                       Completion(text=text, status=status, attempts=0,
                                  error=None if text is not None else "no response in the file")))
    new = store.append_responses(run_id, stored)
    graded = grade_run(store, bench, dataset, run_id, items={i.item_id: i for i, _ in rows})
    store.finish_run(run_id, "completed")
    return {"rows": len(rows), "new": new, "already_stored": len(rows) - new,
            "missing": sum(1 for _, t in rows if t is None), **{f"graded_{g}": n for g, n in graded.items()}}
