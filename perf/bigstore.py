"""A store of about a million responses over all three benchmarks, for the view benchmarks.

Importing a million responses one run at a time through `mathprobe import` takes most of an
hour here, so only the seed runs go through the real path (each benchmark's authors' result
format, graded by its real graders; answers that failed first and were answered on a retry;
the authors' judge's verdicts on a CMMaTH file; a judge cascade; ConceptMath's three probes
with token log-probabilities and probe scores). Every other run is a copy of a seed made in
bulk SQL under its own run id (each run's rows together, runs one after another, as runs
written over time lie in a store), with its own response ids and a share of its verdicts flipped
(so no two runs have the same figures, and a view that mixed runs up would show it), with
ConceptMath copies spread over the zero-shot / chain-of-thought / few-shot settings and over
models (the mean concept accuracy picks one run per model). A store is cached by its recipe
under $MATHPROBE_BENCH_CACHE (default: the temp folder), so a second benchmark run starts at
once; the views are applied again at every write open, so a cached store always carries this
checkout's SQL.

    python perf/bigstore.py [--scale 1.0] [--data-dir DIR]   # build (or find) and describe
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

RECIPE_VERSION = 3
# copies of each seed at scale 1.0: 4 x 100 WE-MATH runs (696,000 responses), 2 x 25
# ConceptMath runs (200,550), 2 x 50 CMMaTH runs (100,000), 3 x 4 probe runs
COPIES = {"wemath": 100, "conceptmath": 25, "cmmath": 50, "probe": 4}


def cache_dir() -> Path:
    return Path(os.environ.get("MATHPROBE_BENCH_CACHE") or tempfile.gettempdir()) / "mathprobe-bench"


def _write_json(path: Path, rows: list[dict], lines: bool = False) -> Path:
    if lines:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding="utf-8")
    else:
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


def wemath_results(data_dir: Path, seed: int) -> list[dict]:
    """WE-MATH testmini rows + a response: right about 40% of the time, in varied formats."""
    rng = random.Random(seed)
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text(encoding="utf-8"))
    out = []
    for row in rows:
        letter = row["answer"] if rng.random() < 0.4 + 0.1 * seed else rng.choice("ABCDE")
        form = rng.choice(["<Thought process>: <<...>> <Answer>: <<{}>>", "Answer: {}",
                           "The answer is {}", "{}"])
        out.append({**row, "response": form.format(letter)})
    return out


def conceptmath_results(data_dir: Path, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for system in ("element_en", "element_zh", "middle_en", "middle_zh"):
        for line in (data_dir / "conceptmath" / f"{system}.jsonl").read_text(
                encoding="utf-8").splitlines():
            row = json.loads(line)
            gold = row["answer"] if rng.random() < 0.5 + 0.1 * seed else 999
            out.append({**row, "response": f"Some working. Therefore, the answer is {gold}."})
    return out


def cmmath_results(data_dir: Path, seed: int, judged: bool) -> list[dict]:
    rng = random.Random(seed)
    rows = json.loads((data_dir / "cmmath" / "cmmath.json").read_text(encoding="utf-8"))
    out = []
    for row in rows:
        right = rng.random() < 0.45
        gold = str(row.get("answer", "")).strip()
        if row.get("answer_type") == "choice":
            text = f"故选：{gold if right else 'ABCD'[rng.randrange(4)]}"
        else:
            text = f"答案：{gold if right else '我认为可能是五'}"
        extra = {"output_correct": "Yes" if right else "No"} if judged else {}
        out.append({**row, "response": text, **extra})
    return out


def _seed_failures(store, run_id: str, item_ids: list[str], every: int) -> None:
    """Failed calls before the answers: every `every`-th item failed once first (history the
    current response must skip), and then the import answers it."""
    from mathprobe.items import Completion

    store.append_responses(run_id, [(i, f"h-{i}", Completion(
        text=None, status="infra_failed", error="HTTP 503: overloaded (gave up after 6 attempt(s))"))
        for i in item_ids[::every]])


def seed_runs(store, data_dir: Path, tmp: Path) -> dict[str, list[str]]:
    """The seed runs, through the real import path and graders; returns run ids by kind."""
    from mathprobe import registry, runs
    from mathprobe.store import RunSpec

    seeds: dict[str, list[str]] = {"wemath": [], "conceptmath": [], "cmmath": [], "probe": []}
    wemath, conceptmath, cmmath = (registry.get(n) for n in ("wemath", "conceptmath", "cmmath"))
    for s in range(4):
        run_id = f"we{s}"
        if s == 0:           # an interrupted-then-retried run: old failures in the history
            items = [it.item_id for it in wemath.load(data_dir).items]
            store.start_run(RunSpec(run_id, "wemath", f"import:{run_id}.json", "import", "official", {}),
                            len(items))
            _seed_failures(store, run_id, items, 7)
        runs.import_official(store, wemath, data_dir,
                             _write_json(tmp / f"{run_id}.json", wemath_results(data_dir, s)), run_id)
        seeds["wemath"].append(run_id)
    for s in range(2):
        run_id = f"cm{s}"
        runs.import_official(store, conceptmath, data_dir, _write_json(
            tmp / f"{run_id}.jsonl", conceptmath_results(data_dir, s), lines=True), run_id)
        seeds["conceptmath"].append(run_id)
    for s in range(2):
        run_id = f"cmm{s}"
        runs.import_official(store, cmmath, data_dir, _write_json(
            tmp / f"{run_id}.json", cmmath_results(data_dir, s, judged=s == 1)), run_id)
        seeds["cmmath"].append(run_id)
    _seed_cascade(store, "cmm0")
    seeds["probe"] += _seed_probes(store, conceptmath, data_dir)
    # a store built from imports has setting 'official'; the live settings of ConceptMath
    store.write(lambda con: con.execute("UPDATE runs SET setting = 'zs', model = 'seed:zs' "
                                        "WHERE run_id = 'cm0'"))
    return seeds


def _seed_cascade(store, run_id: str) -> None:
    """A judge run over the answers the rules left undecided, and the cascade's verdicts."""
    from mathprobe.items import Completion
    from mathprobe.store import RunSpec

    undecided = store.query(
        "SELECT c.item_id, c.response_id FROM current_responses c LEFT JOIN verdicts v "
        "ON v.run_id = c.run_id AND v.item_id = c.item_id AND v.grader = 'rules' "
        "WHERE c.run_id = ? AND v.item_id IS NULL ORDER BY c.item_id", [run_id])
    judge_run = f"{run_id}@judge:openai:judge"
    store.start_run(RunSpec(judge_run, "cmmath", "openai:judge", "openai", "judge", {}),
                    len(undecided))
    store.append_responses(judge_run, [(i, f"j-{i}", Completion(text="Yes" if n % 2 else "No"))
                                       for n, (i, _) in enumerate(undecided)])
    store.finish_run(judge_run, "completed")
    decided = store.query("SELECT v.item_id, v.response_id, v.extracted, v.correct FROM verdicts v "
                          "WHERE v.run_id = ? AND v.grader = 'rules'", [run_id])
    store.write_verdicts(run_id, "cascade:openai:judge", [
        *decided, *((i, rid, "Yes" if n % 2 else "No", bool(n % 2))
                    for n, (i, rid) in enumerate(undecided))])


def _seed_probes(store, bench, data_dir: Path) -> list[str]:
    """ConceptMath's three probe runs over every question: Rouge-L scores, MIN-K% token
    log-probabilities of each question (about 30 tokens), classification reciprocal ranks."""
    from mathprobe.benchmarks.conceptmath._probes import SETTINGS
    from mathprobe.items import Completion
    from mathprobe.store import RunSpec

    rng = random.Random(7)
    items = [it.item_id for it in bench.load(data_dir).items]
    out = []
    for probe, kind in (("rouge", "openai"), ("mink", "triton"), ("classify", "openai")):
        run_id = f"probe-{probe}"
        store.start_run(RunSpec(run_id, "conceptmath", f"{kind}:seed", kind, SETTINGS[probe], {}),
                        len(items))
        rows = []
        for i in items:
            logprobs = ([(f"t{p}", p, -rng.random() * 8) for p in range(20 + rng.randrange(20))]
                        if probe == "mink" else [])
            rows.append((i, f"{probe}-{i}", Completion(text="continuation", token_logprobs=logprobs,
                                                       logprob_kind="prompt")))
        store.append_responses(run_id, rows)
        if probe != "mink":
            store.write_probe_scores(run_id, "rouge_l" if probe == "rouge" else "reciprocal_rank", [
                (i, rng.random() if probe == "rouge" else rng.choice([1.0, 0.5, 1 / 3, 0.0]), None)
                for i in items])
        store.finish_run(run_id, "completed")
        out.append(run_id)
    return out


CLONE_SQL = """
CREATE OR REPLACE TEMP TABLE clone_map AS
SELECT s.run_id AS src, s.run_id || '~' || lpad(k::VARCHAR, 3, '0') AS dst, k, s.kind
FROM (SELECT unnest($seeds::VARCHAR[]) AS run_id, unnest($kinds::VARCHAR[]) AS kind) s,
     range(1, 1000) t(k)
WHERE k < CASE s.kind WHEN 'wemath' THEN $n_wemath WHEN 'conceptmath' THEN $n_conceptmath
                      WHEN 'cmmath' THEN $n_cmmath ELSE $n_probe END;

-- judge runs follow their answer run
INSERT INTO clone_map
SELECT r.run_id, m.dst || '@judge:' || split_part(r.run_id, '@judge:', 2), m.k, 'judge'
FROM runs r JOIN clone_map m ON r.run_id = m.src || '@judge:' || split_part(r.run_id, '@judge:', 2)
WHERE r.run_id LIKE '%@judge:%';

INSERT INTO runs
SELECT r.* REPLACE (
    m.dst AS run_id,
    CASE WHEN m.kind = 'conceptmath' THEN 'model-' || (m.k % 7)
         WHEN m.kind IN ('judge', 'probe') THEN r.model
         ELSE 'model-' || (m.k % 11) END AS model,
    CASE WHEN m.kind = 'conceptmath' THEN ['zs', 'cot', 'fs'][1 + m.k % 3] ELSE r.setting END AS setting,
    r.started_at + INTERVAL (m.k) MINUTE AS started_at)
FROM runs r JOIN clone_map m ON m.src = r.run_id;

INSERT INTO responses
SELECT r.* REPLACE (r.response_id + m.k * $offset AS response_id, m.dst AS run_id)
FROM clone_map m JOIN responses r ON r.run_id = m.src
ORDER BY m.k, m.dst, r.response_id;

INSERT INTO verdicts
SELECT v.* REPLACE (
    m.dst AS run_id, v.response_id + m.k * $offset AS response_id,
    CASE WHEN hash(v.item_id, m.k) % 5 = 0 THEN NOT v.correct ELSE v.correct END AS correct)
FROM clone_map m JOIN verdicts v ON v.run_id = m.src
ORDER BY m.k, m.dst, v.response_id, v.grader;

INSERT INTO token_logprobs
SELECT t.* REPLACE (t.response_id + m.k * $offset AS response_id,
                    t.logprob - (hash(t.response_id, m.k) % 100) / 100.0 AS logprob)
FROM clone_map m JOIN responses r ON r.run_id = m.src
JOIN token_logprobs t ON t.response_id = r.response_id
ORDER BY m.k, m.dst, t.response_id, t.position;

INSERT INTO probe_scores
SELECT p.* REPLACE (m.dst AS run_id,
                    CASE WHEN p.probe = 'rouge_l' THEN (hash(p.item_id, m.k) % 1000) / 1000.0
                         ELSE p.score END AS score)
FROM clone_map m JOIN probe_scores p ON p.run_id = m.src
ORDER BY m.k, m.dst, p.item_id;
"""


def build(path: Path, data_dir: Path, scale: float = 1.0) -> None:
    from mathprobe.store import Store, run_data

    copies = {k: max(1, round(v * scale)) for k, v in COPIES.items()}
    store = Store(path)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            seeds = seed_runs(store, data_dir, Path(tmp))
        (offset,), = store.query("SELECT max(response_id) + 1 FROM responses")
        kinds = [(run_id, kind) for kind, ids in seeds.items() for run_id in ids]

        def clone(con) -> None:
            for st in CLONE_SQL.split(";\n"):
                if st.strip():
                    params = {k: v for k, v in {
                        "seeds": [r for r, _ in kinds], "kinds": [k for _, k in kinds],
                        "offset": offset, **{f"n_{k}": v for k, v in copies.items()}}.items()
                        if f"${k}" in st}
                    con.execute(st, params or None)
        store.write(clone)
        # the copies were written in bulk SQL, past the store's writes: their id spans and
        # stored figures, as the store keeps them for runs it writes (mathprobe/store/run_data.py)
        store.write(run_data.refresh)
        store.con.execute("CHECKPOINT")
    finally:
        store.close()


def recipe(data_dir: Path, scale: float) -> str:
    h = hashlib.sha256(f"{RECIPE_VERSION}/{scale}/{data_dir}".encode())
    for f in (Path(__file__), *(REPO / "mathprobe" / "benchmarks").rglob("*.py")):
        h.update(f.read_bytes())      # graders and loaders decide the seeds' verdicts
    return h.hexdigest()[:16]


def get(data_dir: Path, scale: float = 1.0, log=print) -> Path:
    """The cached store of this recipe, built first when absent (a few minutes)."""
    path = cache_dir() / f"bigstore-{recipe(data_dir, scale)}.duckdb"
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob("bigstore-*.duckdb*"):
        old.unlink()
    tmp = path.with_suffix(".building")
    tmp.unlink(missing_ok=True)
    log(f"building the benchmark store {path} (scale {scale}; cached for later runs) ...")
    t = time.perf_counter()
    build(tmp, data_dir, scale)
    tmp.rename(path)
    log(f"  built in {time.perf_counter() - t:.0f} s")
    return path


def describe(path: Path) -> str:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        (n,), = con.execute("SELECT count(*) FROM responses").fetchall()
        per = con.execute("SELECT benchmark, count(*) FROM runs GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        con.close()
    return f"{n:,} responses; runs: " + ", ".join(f"{b} {c}" for b, c in per)


def main() -> None:
    from mathprobe.registry import resolve_data_dir

    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    path = get(resolve_data_dir(args.data_dir), args.scale)
    print(f"{path}: {describe(path)}")


if __name__ == "__main__":
    main()
