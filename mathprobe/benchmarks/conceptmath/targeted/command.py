"""ConceptMath's `select-data` (Benchmark.select_data): the benchmark's questions and the user's
extra labelled ones (`--train`) in, the selection made (`select.select`), what it did out as
lines for the terminal: the classifier's held-out figures first (beside what the paper reports),
then what was read, kept and removed, per weak concept."""
from __future__ import annotations

import json
from pathlib import Path

from mathprobe.benchmarks.conceptmath.data.dataset import SYSTEMS, load
from mathprobe.benchmarks.conceptmath.targeted.classifier import HeldOut, Labelled
from mathprobe.benchmarks.conceptmath.targeted.select import select
from mathprobe.contract import SelectOptions, SelectProgress
from mathprobe.errors import MathprobeError
from mathprobe.reports.format import pct
from mathprobe.store import Store

TABLE6 = ("the paper's Table 6 (LLMs ranking the ~18 level-2 concepts of a system: MRR, top-1) "
          "is not transcribed in this project's reference (docs/benchmarks.md), so its figures "
          "are not shown beside these; top-1 at level 2 is the comparable one")


def read_train(path: Path, systems: set[str]) -> list[Labelled]:
    """Extra labelled questions: JSON lines of {system, concept (cate0/cate1/cate2), question},
    or cate0, cate1, cate2 instead of concept; a bad row is a one-line error naming it."""
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise MathprobeError(f"--train {path}: cannot read it ({exc.strerror or exc})") from None
    for row, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--train {path}: row {row}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MathprobeError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise MathprobeError(f"{where}: not a JSON object")
        concept = data.get("concept")
        if concept is None and all(isinstance(data.get(f"cate{k}"), str) for k in range(3)):
            concept = "/".join(data[f"cate{k}"] for k in range(3))
        for name, value in (("system", data.get("system")), ("concept", concept),
                            ("question", data.get("question"))):
            if not isinstance(value, str) or not value.strip():
                raise MathprobeError(f"{where}, field {name!r}: missing or not a string")
        if data["system"] not in systems:
            raise MathprobeError(f"{where}, field 'system': {data['system']!r} is not one of "
                                 + ", ".join(sorted(systems)))
        assert isinstance(concept, str)            # the loop above refused any other
        out.append(Labelled(data["system"], concept, data["question"]))
    return out


def heldout_lines(heldout: list[HeldOut]) -> list[str]:
    lines = ["concept classifier, held out (20% of each concept's questions, seeded): "
             "system | questions trained / held out | concepts | top-1 | MRR | top-1 at level 2"]
    lines += [f"  {h.system}: {h.n_train} / {h.n_test} | {h.n_concepts} | {pct(h.top1)}% | "
              f"{h.mrr:.4f} | {pct(h.top1_level2)}%" for h in heldout]
    return lines + [f"  ({TABLE6})"]


def select_data(store: Store, data_dir: Path, options: SelectOptions,
                progress: SelectProgress) -> list[str]:
    dataset = load(data_dir)
    extra = read_train(options.train, set(SYSTEMS)) if options.train else []

    def note_heldout(heldout: list[HeldOut]) -> None:
        for line in heldout_lines(heldout):
            progress.note(line)

    result = select(store, dataset.items, options, extra=extra, progress=progress,
                    on_heldout=note_heldout)
    lines = [f"read {result.n_read} documents (corpus fingerprint {result.corpus_fingerprint});"
             f" {result.n_candidates} had a weak concept as their most likely one"]
    for w in result.weak:
        docs = result.chosen.get((w["system"], w["concept"]), [])
        lines.append(f"  [{w['system']}] #{w['rank']} {w['concept']} ({pct(w['accuracy'])}%, "
                     f"n={w['n']}): {len(docs)} document(s)"
                     + (f", scores {docs[-1][0]:.3f}..{docs[0][0]:.3f}" if docs else ""))
    lines.append(f"removed {len(result.overlapping)} document(s) overlapping a benchmark question"
                 " (n-gram or Rouge-L)" + (": e.g. " + ", ".join(
                     f"{d.id} ~ {o.item_id} ({o.probe})" for d, o in result.overlapping[:3])
                     if result.overlapping else "")
                 + f"; {result.n_duplicates} near-duplicate(s)")
    if options.mix:
        lines.append(f"mixed in {len(result.mixed)} of {result.n_mix_rows} general-set rows "
                     f"(ratio {options.mix_ratio:g}, seed {options.seed}; "
                     f"{result.n_mix_overlapping} overlapping the benchmark left out)")
    lines.append(f"wrote {result.n_selected + len(result.mixed)} chat examples to {result.out};"
                 f" recorded as selection {result.selection_id} in table conceptmath_selections")
    return lines
