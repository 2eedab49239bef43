"""Grading stored answers with a benchmark's rule graders (never the failed calls: they have no
answer), so a live run and an imported response set are graded by the same code."""
from __future__ import annotations

from mathprobe.contract import Benchmark, Dataset
from mathprobe.items import Item
from mathprobe.store import Store


def grade_run(store: Store, bench: Benchmark, dataset: Dataset, run_id: str,
              items: dict[str, Item] | None = None) -> dict[str, int]:
    """Grade every stored answer of the run not yet graded, with each of the benchmark's rule
    graders (`bench.graders`). A grader may leave an answer undecided (correct is None): it
    then gets no verdict from that grader, for a later stage (e.g. a judge) to decide.
    `items` overrides the dataset's items (an imported file may carry its own gold answers)."""
    items = {**dataset.by_id(), **(items or {})}
    graded: dict[str, int] = {}
    for grader in bench.graders:
        rows = store.ungraded(run_id, grader)
        verdicts = [(iid, rid, *bench.grade(grader, items[iid], text)) for rid, iid, text in rows]
        store.write_verdicts(run_id, grader, [(iid, rid, extracted, correct)
                                              for iid, rid, extracted, correct in verdicts
                                              if correct is not None])
        graded[grader] = len(verdicts)
    return graded
