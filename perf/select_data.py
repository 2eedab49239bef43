"""`select-data` on a generated corpus: documents per second through the whole selection
(classify, keep the best per weak concept, check the candidates against the benchmark and for
near-duplicates) and the peak memory of the process doing it, which must not grow with the
corpus (it is read in batches through DuckDB).

The corpus is JSON lines made here, about 800 characters a document: most documents are word
salad over the ConceptMath questions' vocabulary (English) or characters (Chinese), each about
one concept (so the classifier has real work), with benchmark questions copied into some and
near-duplicate pages among them. The store holds one run on all four systems imported in the
authors' format with seeded right/wrong answers: its weakest concepts are in all four systems,
so every document is classified (an English one by both English systems' models, a Chinese one
by both Chinese ones). The selection runs in a child process, so its
peak RSS (ru_maxrss) is its own: Python, numpy, scikit-learn and DuckDB included.

    python perf/select_data.py [--docs 100000] [--weakest 10] [--per-concept 50] [--keep DIR]

The figures of docs/performance.md are from `--docs 1000000`.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def data_dir() -> Path:
    return Path(os.environ.get("MATHPROBE_DATA_DIR") or REPO.parent / "shared" / "data")


def make_store(db: Path, seed: int) -> None:
    """A store with run 'perf': every problem answered, right with probability 0.6."""
    from mathprobe import registry, runs
    from mathprobe.store import close_all, open_store

    rng = random.Random(seed)
    bench = registry.get("conceptmath")
    data = data_dir()
    store = open_store(db)
    rows = [json.loads(x) for system in ("element_en", "element_zh", "middle_en", "middle_zh")
            for x in (data / "conceptmath" / f"{system}.jsonl").read_text().splitlines()
            if x.strip()]
    answered = db.parent / "answers.jsonl"
    answered.write_text("".join(json.dumps({**r, "response": "Therefore, the answer is "
                                            + (str(r["answer"]) if rng.random() < 0.6
                                               else "99999") + "."}, ensure_ascii=False) + "\n"
                                for r in rows))
    runs.import_official(store, bench, data, answered, "perf")
    close_all()


def make_corpus(path: Path, n: int, seed: int) -> int:
    """n documents as JSON lines; returns the bytes written."""
    from mathprobe.benchmarks.conceptmath import load

    rng = random.Random(seed)
    items = load(data_dir()).items
    by_concept: dict[tuple[str, str], list[str]] = {}
    for i in items:
        by_concept.setdefault((i.group_id, i.concept), []).append(i.question)
    concepts = list(by_concept)
    vocab = {k: ([w for q in qs for w in q.split()] if not k[0].endswith("_zh")
                 else [c for q in qs for c in q if not c.isspace()]) for k, qs in by_concept.items()}
    filler = "the of and a to in is we this that for with as on be are by it".split()

    def fragment(key: tuple[str, str]) -> str:
        words = vocab[key]
        if key[0].endswith("_zh"):
            return "".join(rng.choice(words) for _ in range(20))
        return " ".join(rng.choice(words) if rng.random() < 0.6 else rng.choice(filler)
                        for _ in range(10))

    # per concept 300 fragments of word salad; a document strings 15 of one concept's together
    # (generating each word of a million documents would take longer than selecting them)
    fragments = {key: [fragment(key) for _ in range(300)] for key in concepts}
    pages: list[str] = []
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            r = rng.random()
            if r < 0.002 and pages:                      # a near-duplicate of an earlier page
                text = rng.choice(pages) + " (mirror)"
            else:
                key = rng.choice(concepts)
                text = (" " if not key[0].endswith("_zh") else "").join(
                    rng.choices(fragments[key], k=15))
                if r > 0.999:                             # a benchmark question copied in
                    text += " " + rng.choice(by_concept[key])
                if len(pages) < 1000 and rng.random() < 0.01:
                    pages.append(text)
            fh.write(json.dumps({"id": f"doc-{k}", "text": text}, ensure_ascii=False) + "\n")
    return path.stat().st_size


def child(args: argparse.Namespace) -> None:
    """The selection itself, timed: training apart from the pass over the corpus."""
    from mathprobe import registry
    from mathprobe.benchmarks.conceptmath.targeted import classifier, select
    from mathprobe.contract import SelectOptions, SelectProgress
    from mathprobe.store import open_store

    marks: dict[str, float] = {}

    class Timer(SelectProgress):
        def start(self, total):
            marks["stream"] = time.perf_counter()

    store = open_store(args.db)
    items = registry.get("conceptmath").load(data_dir()).items
    started = time.perf_counter()
    opts = SelectOptions("perf", "official", (str(args.corpus),), Path(args.out),
                         id_field="id", weakest=args.weakest, per_concept=args.per_concept)
    result = select.select(store, items, opts, progress=Timer())
    done = time.perf_counter()
    print(json.dumps({
        "documents": result.n_read, "selected": result.n_selected,
        "candidates": result.n_candidates, "removed_overlapping": len(result.overlapping),
        "removed_duplicates": result.n_duplicates,
        "training_s": marks["stream"] - started, "stream_s": done - marks["stream"],
        "total_s": done - started, "max_chars": classifier.MAX_CHARS}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--weakest", type=int, default=10)
    ap.add_argument("--per-concept", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", type=Path, help="Keep the corpus and store in this folder.")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="select-perf-"))
    folder.mkdir(parents=True, exist_ok=True)
    corpus, db = folder / f"corpus-{args.docs}.jsonl", folder / "store.duckdb"
    t = time.perf_counter()
    if not corpus.exists():
        size = make_corpus(corpus, args.docs, args.seed)
        print(f"corpus: {args.docs} documents, {size / 1e6:.0f} MB, made in "
              f"{time.perf_counter() - t:.0f} s")
    if not db.exists():
        make_store(db, args.seed)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, __file__, "--child", "--db", str(db), "--corpus",
                          str(corpus), "--out", str(folder / "train.jsonl"), "--weakest",
                          str(args.weakest), "--per-concept", str(args.per_concept)],
                         env=env, capture_output=True, text=True)
    if run.returncode:
        sys.exit(run.stderr[-3000:])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    got = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"select-data, the {args.weakest} weakest of each of the 4 systems x "
          f"{args.per_concept}: "
          f"{got['documents']} documents in {got['stream_s']:.1f} s = "
          f"{got['documents'] / got['stream_s']:,.0f} documents/s (classifier trained in "
          f"{got['training_s']:.1f} s before); {got['candidates']} candidates, "
          f"{got['selected']} selected, {got['removed_overlapping']} removed as overlapping the "
          f"benchmark, {got['removed_duplicates']} as near-duplicates; peak memory "
          f"{peak:,.0f} MB (RSS of the selecting process)")


if __name__ == "__main__":
    main()
