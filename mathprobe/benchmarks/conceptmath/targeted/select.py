"""`select-data`: concept-specific training data for a run's weakest concepts (paper Sec. 2.4),
pulled from a corpus without contaminating the benchmark.

The steps, one pass over the corpus: the run's `weakest` concepts per system; a
`ConceptClassifier` trained on the benchmark's questions (and the user's labelled ones); each
document, read in batches (`Corpus`), goes to its most likely concept, and where that is a weak
one it competes for the concept's `per_concept` places by its probability. A document about to
take a place is first checked: one that overlaps any benchmark question (`BenchmarkOverlap`) is
removed and counted; one that is a near-duplicate of a document already selected
(`NearDuplicates`) takes that one's place only with a higher score. So the checks run on the
few thousand documents that could be selected, not on millions. Then a general set may be mixed
in (`--mix`, as the paper mixes MetaMathQA: a seeded sample, checked the same way), the
fine-tuning file is written (chat format, atomically), and the selection is recorded in the
store (table conceptmath_selections)."""
from __future__ import annotations

import heapq
import json
import os
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.conceptmath.targeted import weakest as weakest_
from mathprobe.benchmarks.conceptmath.targeted.classifier import (
    ConceptClassifier,
    HeldOut,
    Labelled,
    evaluate,
    system_language,
)
from mathprobe.benchmarks.conceptmath.targeted.corpus import Corpus, Doc, expand
from mathprobe.benchmarks.conceptmath.targeted.dedup import NearDuplicates
from mathprobe.benchmarks.conceptmath.targeted.mix import read_mix
from mathprobe.benchmarks.conceptmath.targeted.overlap import BenchmarkOverlap, Overlap
from mathprobe.contract import SelectOptions, SelectProgress
from mathprobe.errors import MathprobeError
from mathprobe.store import Store

# the user turn of a corpus document: a request for what the document teaches (its concept's
# leaf name), in the concept's language; the document is the assistant's answer
PROMPTS = {"en": "Explain {leaf}, with worked examples.", "zh": "请结合例题讲解：{leaf}"}


@dataclass
class Selection:
    """What select-data did: the weak concepts, what it read, kept and removed, and why."""
    selection_id: str
    weak: list[dict[str, Any]]
    heldout: list[HeldOut]
    chosen: dict[tuple[str, str], list[tuple[float, Doc]]] = field(default_factory=dict)
    mixed: list[tuple[list[dict[str, str]], Doc]] = field(default_factory=list)
    n_read: int = 0
    n_candidates: int = 0                  # documents whose best concept is a weak one
    overlapping: list[tuple[Doc, Overlap]] = field(default_factory=list)
    n_duplicates: int = 0
    n_mix_overlapping: int = 0
    n_mix_rows: int = 0
    corpus_fingerprint: str = ""
    mix_fingerprint: str = ""
    classifier: str = ""
    out: Path | None = None

    @property
    def n_selected(self) -> int:
        return sum(len(v) for v in self.chosen.values())


def labelled(items, extra: Sequence[Labelled] = ()) -> list[Labelled]:
    """The benchmark's questions with their system and level-3 concept, then the extra ones."""
    return [Labelled(i.group_id, i.concept, i.question) for i in items] + list(extra)


def select(store: Store, items: Sequence, opts: SelectOptions, *,
           extra: Sequence[Labelled] = (),
           progress: SelectProgress | None = None,
           on_heldout: Callable[[list[HeldOut]], None] | None = None) -> Selection:
    """Select, write `opts.out` and record the selection (see the module's docstring).
    `on_heldout` gets the classifier's held-out figures; `progress` the corpus's size where
    known and the documents read and selected."""
    progress = progress or SelectProgress()
    weak = weakest_.weakest(store, opts.run_id, opts.grader, opts.weakest)
    if not weak:
        raise MathprobeError(f"run {opts.run_id!r} has no concept with enough graded problems "
                             f"under grader {opts.grader!r} to rank (conceptmath_lowest_k)")
    corpus = Corpus(expand(opts.corpus), opts.text_field, opts.id_field, opts.batch)
    corpus.check()                      # its files and fields, before any work
    mix_files = expand(opts.mix, "--mix") if opts.mix else []
    examples = labelled(items, extra)
    systems = sorted({w["system"] for w in weak})
    heldout = evaluate([e for e in examples if e.system in systems])
    if on_heldout:
        on_heldout(heldout)
    clf = ConceptClassifier(examples, systems)
    wanted = {(w["system"], w["concept"]) for w in weak}
    overlap = BenchmarkOverlap(items)
    dups = NearDuplicates()
    result = Selection(uuid.uuid4().hex[:12], weak, heldout, classifier=clf.fingerprint)
    heaps: dict[tuple[str, str], list[tuple[float, int, Doc]]] = {k: [] for k in wanted}
    where: dict[str, tuple[str, str]] = {}          # selected doc key -> its concept
    progress.start(corpus.estimate())
    seq = 0
    for batch in corpus.batches():
        for doc, best in zip(batch, clf.classify([d.text for d in batch])):
            seq += 1
            if best is None or (best[0], best[1]) not in wanted:
                continue
            result.n_candidates += 1
            key, score = (best[0], best[1]), best[2]
            heap = heaps[key]
            if len(heap) >= opts.per_concept and score <= heap[0][0]:
                continue
            hit = overlap.check(doc.text)
            if hit is not None:
                result.overlapping.append((doc, hit))
                continue
            dup, sh, mh = dups.find(doc.text)
            if dup is not None:
                result.n_duplicates += 1
                other = heaps[where[dup]]
                mine = next(e for e in other if _key(e[2]) == dup)
                if score <= mine[0]:
                    continue
                other.remove(mine)                  # the better copy takes its place
                heapq.heapify(other)
                dups.remove(dup)
                del where[dup]
            heapq.heappush(heap, (score, -seq, doc))
            dups.add(_key(doc), sh, mh)
            where[_key(doc)] = key
            if len(heap) > opts.per_concept:
                _, _, out = heapq.heappop(heap)
                dups.remove(_key(out))
                del where[_key(out)]
        result.n_read = corpus.rows_read
        progress.advance(result.n_read, sum(len(h) for h in heaps.values()))
    result.corpus_fingerprint = corpus.fingerprint
    result.chosen = {k: [(s, d) for s, _, d in sorted(h, key=lambda e: (-e[0], -e[1]))]
                     for k, h in heaps.items()}
    if mix_files:
        _mix(result, mix_files, opts, overlap)
    result.out = _write(result, opts)
    _record(store, result, opts)
    return result


def _key(doc: Doc) -> str:
    return f"{doc.file}\x1f{doc.id}\x1f{doc.row}"


def _mix(result: Selection, files: list[str], opts: SelectOptions,
         overlap: BenchmarkOverlap) -> None:
    """A seeded sample of the general set, round(mix_ratio x the documents selected) rows
    (reservoir sampling: one pass, any size); a row that overlaps a benchmark question is
    never taken (counted)."""
    want = round(opts.mix_ratio * result.n_selected)
    rng = random.Random(opts.seed)
    sample: list[tuple[list[dict[str, str]], Doc]] = []
    seen = 0
    rows = read_mix(files)
    for messages, doc in rows:
        seen += 1
        slot = len(sample) if len(sample) < want else rng.randrange(seen)
        if slot >= want:
            continue
        if overlap.check(doc.text) is not None:
            result.n_mix_overlapping += 1
            continue
        if slot == len(sample):
            sample.append((messages, doc))
        else:
            sample[slot] = (messages, doc)
    result.mixed = sample
    result.n_mix_rows = seen
    result.mix_fingerprint = rows.fingerprint


def _leaf(concept: str) -> str:
    return concept.split("/", 2)[-1]


def _write(result: Selection, opts: SelectOptions) -> Path:
    """The fine-tuning file, chat format, one JSON object a line: the selected documents by
    concept (weakest first, highest score first), then the general set; written to a temporary
    file beside it and renamed, so a failure leaves no half file."""
    order = {(w["system"], w["concept"]): (w["system"], w["rank"]) for w in result.weak}
    out = Path(opts.out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            for (system, concept) in sorted(result.chosen, key=lambda k: order[k]):
                prompt = PROMPTS[system_language(system)].format(leaf=_leaf(concept))
                for score, doc in result.chosen[(system, concept)]:
                    fh.write(json.dumps({
                        "messages": [{"role": "user", "content": prompt},
                                     {"role": "assistant", "content": doc.text}],
                        "concept": concept, "system": system, "source_id": doc.id,
                        "score": round(score, 6)}, ensure_ascii=False) + "\n")
            for messages, doc in result.mixed:
                fh.write(json.dumps({"messages": messages, "concept": None, "system": None,
                                     "source_id": doc.id}, ensure_ascii=False) + "\n")
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise MathprobeError(f"--out {out}: could not write it ({exc.strerror or exc})") from None
    return out


def _record(store: Store, result: Selection, opts: SelectOptions) -> None:
    """One row per document written, in table conceptmath_selections."""
    now = datetime.now(UTC).replace(tzinfo=None)
    params = json.dumps({
        "weakest": opts.weakest, "per_concept": opts.per_concept, "text_field": opts.text_field,
        "id_field": opts.id_field, "mix": list(opts.mix), "mix_ratio": opts.mix_ratio,
        "seed": opts.seed, "documents_read": result.n_read, "candidates": result.n_candidates,
        "removed_overlapping_benchmark": len(result.overlapping),
        "removed_near_duplicates": result.n_duplicates,
        "mix_rows_read": result.n_mix_rows, "mix_removed_overlapping": result.n_mix_overlapping,
        "mix_fingerprint": result.mix_fingerprint})
    corpus = ",".join(opts.corpus)
    rows: list[tuple[Any, ...]] = [
            (result.selection_id, opts.run_id, opts.grader, system, concept, rank, "corpus",
             doc.id, score, corpus, result.corpus_fingerprint, result.classifier, params,
             str(result.out), now)
            for (system, concept), docs in result.chosen.items()
            for rank, (score, doc) in enumerate(docs, 1)]
    rows += [(result.selection_id, opts.run_id, opts.grader, None, None, None, "mix", doc.id,
              None, ",".join(opts.mix), result.mix_fingerprint, result.classifier, params,
              str(result.out), now) for _, doc in result.mixed]
    if rows:
        store.write(lambda con: con.executemany(
            "INSERT INTO conceptmath_selections VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows))
