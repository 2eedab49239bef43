"""The HTML report's item browser: every answer that counts, with its question as the model saw
it (a benchmark's `shown_question`: WE-MATH's options included), extracted answer, gold, verdict
per grader, error type per labeller (mathprobe errors), status and image; a reasoning model's
reasoning folded beside its answer (graders saw the answer only). A call that failed or was cut
shows why (its error).

Rows are in natural order of their ids (2steps_1, 2steps_2, ..., 2steps_10), whole runs in
order, up to `max_items` answers. Images travel with the file: distinct images (by content) are
embedded as JPEG thumbnails (mathprobe.reports.thumbnails, whatever the image's mode), up to
`max_thumbnails` of them (a few ms and about 6 KB each: perf/thumbnails.py); the others are
linked relative to the report's folder, so a report shared together with its data folder still
finds them. Never an absolute file:// link: that breaks on any other machine.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from mathprobe import registry
from mathprobe.errors import MathprobeError
from mathprobe.reports import thumbnails
from mathprobe.store import Store

MAX_ITEMS = 20_000          # answers in the item browser at most (whole runs, in order)
MAX_TEXT = 4_000            # characters of a question or response kept in the browser
MAX_THUMBNAILS = 300        # distinct images embedded as thumbnails at most; others linked


def natural_key(text: str) -> tuple:
    """'2steps_10' after '2steps_9': digits compared as numbers."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", text) if p)


def items(store: Store, runs: list[dict[str, Any]], data_dir: Path | None, max_items: int,
          out_dir: Path, max_thumbnails: int = MAX_THUMBNAILS) -> dict[str, Any]:
    """The browser's data: runs, graders, images, and per answer [run index, item id, concept,
    question, gold, status, response, image index (-1: none), {grader: [extracted, correct]},
    reasoning ('' : none), {labeller: [error type, first wrong step]} (its error labels:
    mathprobe errors)]."""
    take: list[str] = []
    left_out: list[str] = []
    total = 0
    counts = dict(store.query("SELECT run_id, count(*) FROM current_responses WHERE "
                              "list_contains(?, run_id) GROUP BY run_id",
                              [[r["run_id"] for r in runs]]))
    for r in runs:
        n = counts.get(r["run_id"], 0)
        if total + n > max_items and take:
            left_out.append(r["run_id"])
            continue
        take.append(r["run_id"])
        total += n
    rows = _answers(store, take)
    verdicts: dict[tuple[str, str], dict[str, list]] = {}
    graders: set[str] = set()
    for run_id, item_id, grader, extracted, correct in store.query(
            "SELECT run_id, item_id, grader, extracted, correct FROM item_verdicts "
            "WHERE list_contains(?, run_id)", [take]):
        verdicts.setdefault((run_id, item_id), {})[grader] = [extracted, correct]
        graders.add(grader)
    labels: dict[tuple[str, str], dict[str, list]] = {}
    labelled = [r for (r,) in store.query("SELECT DISTINCT run_id FROM error_labels WHERE "
                                          "list_contains(?, run_id)", [take])]
    for run_id, item_id, labeler, error_type, first_error in store.query(
            "SELECT run_id, item_id, labeler, error_type, first_error FROM error_labels_current "
            "WHERE list_contains(?, run_id)", [labelled]) if labelled else []:
        labels.setdefault((run_id, item_id), {})[labeler] = [error_type, first_error]
    order = {run_id: k for k, run_id in enumerate(take)}
    rows.sort(key=lambda r: (order[r[0]], natural_key(r[1])))
    bench_of = {r["run_id"]: r["benchmark"] for r in runs}
    shown = _datasets({bench_of[r] for r in take}, data_dir)
    images = _Images(out_dir, max_thumbnails)
    out = []
    for run_id, item_id, concept, question, gold, status, response, error, reasoning in rows:
        question_text, image = shown.get(bench_of[run_id], {}).get(item_id, (question, None))
        shown_text = response if response is not None and (response or not error) else error
        out.append([order[run_id], item_id, concept or "", _cut(question_text), gold or "",
                    status, _cut(shown_text or ""), images.ref(image),
                    verdicts.get((run_id, item_id), {}), _cut(reasoning) if reasoning else "",
                    labels.get((run_id, item_id), {})])
    grader_of = {r["run_id"]: r["grader"] for r in runs}
    return {"data": {"runs": take, "run_graders": [grader_of[r] for r in take],
                     "run_benchmarks": [bench_of[r] for r in take],
                     "graders": sorted(graders), "images": images.srcs, "rows": out},
            "left_out": left_out, "datasets": bool(shown), "thumbnails": images.embedded,
            "linked": len(images.srcs) - images.embedded}


def _answers(store: Store, runs: list[str]) -> list[tuple]:
    """(run, item, concept, question, gold, status, answer, error, reasoning) of the answers
    that count; the reasoning is '' in a store older than it (opened read-only, unchanged)."""
    import duckdb

    query = ("SELECT c.run_id, c.item_id, i.concept, i.question, i.gold, c.status, c.response, "
             "c.error, {reasoning} FROM current_responses c JOIN runs r ON r.run_id = c.run_id "
             "JOIN items i ON i.benchmark = r.benchmark AND i.item_id = c.item_id "
             "WHERE list_contains(?, c.run_id)")
    try:
        return store.query(query.format(reasoning="c.reasoning"), [runs])
    except duckdb.BinderException:
        return store.query(query.format(reasoning="''"), [runs])


def _datasets(names: set[str], data_dir: Path | None
              ) -> dict[str, dict[str, tuple[str, str | None]]]:
    """benchmark -> item id -> (question as shown to the model, image path), from the data."""
    try:
        root = registry.resolve_data_dir(data_dir)
    except MathprobeError:
        return {}
    out = {}
    for name in sorted(names):
        bench = registry.get(name)
        try:
            dataset = bench.load(root)
        except (MathprobeError, OSError):
            continue
        out[name] = {i.item_id: (bench.shown_question(i),
                                 i.image_path if i.image_path and Path(i.image_path).is_file()
                                 else None) for i in dataset.items}
    return out


class _Images:
    """Image paths -> indices into `srcs` (a thumbnail's data: URL, or a link relative to the
    report's folder), one entry per distinct content."""

    def __init__(self, out_dir: Path, max_thumbnails: int):
        self.out_dir = out_dir.resolve()
        self.max = max_thumbnails
        self.srcs: list[str] = []
        self.embedded = 0
        self._by_path: dict[str, int] = {}
        self._by_digest: dict[str, int] = {}

    def ref(self, path: str | None) -> int:
        if not path:
            return -1
        if path in self._by_path:
            return self._by_path[path]
        data = Path(path).read_bytes()
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        if digest not in self._by_digest:
            src = thumbnails.thumbnail(digest, data) if self.embedded < self.max else None
            if src is None:
                src = Path(os.path.relpath(Path(path).resolve(), self.out_dir)).as_posix()
            else:
                self.embedded += 1
            self._by_digest[digest] = len(self.srcs)
            self.srcs.append(src)
        self._by_path[path] = self._by_digest[digest]
        return self._by_path[path]


def _cut(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= MAX_TEXT else (text[:MAX_TEXT] + f" … [{len(text) - MAX_TEXT} "
                                               "more characters: see the responses table]")
