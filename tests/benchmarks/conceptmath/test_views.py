"""ConceptMath views on hand-made data: accuracy per system, concept accuracy at levels 1..3,
the unmastered ranking, the mean over runs, grader disagreement and the Table 2 macro, all
hand-computed."""
import json
from pathlib import Path

import duckdb
import pytest

from mathprobe import reports, runs
from mathprobe.benchmarks import conceptmath
from mathprobe.items import Completion
from mathprobe.reports import compare, terminal
from mathprobe.store import RunSpec, Store
from tests.support.report import figure, figures

SYSTEMS = ("element_en", "element_zh", "middle_en", "middle_zh")

# element_en: six problems under four leaves; a cate2 holding '/' (as the real data has).
ELEMENT_EN = [  # idx, cate0, cate1, cate2, answer
    (1, "A", "a", "x", "5"),
    (2, "A", "a", "x", 7),
    (3, "A", "a", "y", "1/4"),
    (4, "A", "b", "mode/mean", "[2,3]"),
    (5, "A", "b", "mode/mean", 40),
    (6, "B", "c", "w", "0.5"),
]


def row(system: str, idx: int, c0: str, c1: str, c2: str, answer, question: str | None = None):
    return {"idx": idx, "cate0": c0, "cate1": c1, "cate2": c2,
            "question": question or f"{system} question {idx}?", "answer": answer,
            "grade": system}


def make_conceptmath_dir(root: Path, rows: dict[str, list[dict]] | None = None, *,
                         fewshot: bool = True) -> Path:
    """A data dir with the four systems (by default: ELEMENT_EN, and one problem in each other
    system) and a 5-shot chat file."""
    cm = root / "conceptmath"
    cm.mkdir(parents=True, exist_ok=True)
    rows = rows or {}
    for system in SYSTEMS:
        lines = rows.get(system)
        if lines is None:
            lines = ([row(system, *r) for r in ELEMENT_EN] if system == "element_en"
                     else [row(system, 1, "Z", "z", "leaf", "3")])
        (cm / f"{system}.jsonl").write_text(
            "".join((ln if isinstance(ln, str) else json.dumps(ln, ensure_ascii=False)) + "\n"
                    for ln in lines), encoding="utf-8")
    if fewshot:      # the authors' format: per system, user / assistant chat turns
        shots = {s: [t for k in range(1, 6) for t in (
            {"role": "user", "content": f"{s} shot question {k}"},
            {"role": "assistant", "content": f"{s} shot answer {k}. Therefore, the answer is {k}."})]
            for s in SYSTEMS}
        (cm / "fewshot_authors_chat.json").write_text(json.dumps(shots, ensure_ascii=False))
    conceptmath.load.cache_clear()
    return root


def right(gold) -> str:
    return f"Some working. Therefore, the answer is {gold}."


def wrong(gold) -> str:
    return "Some working. Therefore, the answer is 999."


def results_file(path: Path, data_root: Path, answers: dict[int, str]) -> Path:
    """The authors' inference format for element_en: rows plus `response` (idx -> response)."""
    src = [json.loads(x) for x in
           (data_root / "conceptmath" / "element_en.jsonl").read_text().splitlines()]
    path.write_text("".join(json.dumps({**r, "response": answers[r["idx"]]}) + "\n"
                            for r in src if r["idx"] in answers))
    return path


# Run 'hand': 1 right, 2 wrong, 3 right, 4 wrong, 5 wrong, 6 right.
PATTERN = {1: True, 2: False, 3: True, 4: False, 5: False, 6: True}
GOLD = {r[0]: r[4] for r in ELEMENT_EN}


@pytest.fixture
def hand_made(tmp_path: Path, db: Path):
    root = make_conceptmath_dir(tmp_path / "data")
    answers = {i: (right if ok else wrong)(GOLD[i]) for i, ok in PATTERN.items()}
    answers[4] = "The answers are 3 and 2."          # a list gold, in the other order: right
    PATTERN_WITH_LIST = {**PATTERN, 4: True}
    store = Store(db)
    runs.import_official(store, conceptmath.benchmark, root, results_file(tmp_path / "r.jsonl", root,
                                                                    answers), "hand")
    return store, root, PATTERN_WITH_LIST


def test_accuracy_per_system(hand_made):
    store, _, pattern = hand_made
    rows = store.query("SELECT system, n, correct, accuracy FROM conceptmath_accuracy "
                       "WHERE run_id = 'hand' AND grader = 'official'")
    assert rows == [("element_en", 6, 4, 4 / 6)]
    (n, c, acc), = store.query("SELECT n, correct, accuracy FROM conceptmath_run_accuracy "
                               "WHERE run_id = 'hand' AND grader = 'official'")
    assert (n, c) == (6, 4) and acc == 4 / 6


def test_concept_accuracy_at_three_levels(hand_made):
    store, _, _ = hand_made
    got = {(lvl, concept): (n, c, acc) for lvl, concept, n, c, acc in store.query(
        "SELECT level, concept, n, correct, accuracy FROM conceptmath_concept_accuracy "
        "WHERE run_id = 'hand' AND grader = 'official'")}
    # right: 1 (A/a/x), 3 (A/a/y), 4 (A/b/mode/mean), 6 (B/c/w); wrong: 2 (A/a/x), 5 (A/b/...)
    assert got == {
        (1, "A"): (5, 3, 3 / 5),
        (1, "B"): (1, 1, 1.0),
        (2, "A/a"): (3, 2, 2 / 3),
        (2, "A/b"): (2, 1, 1 / 2),
        (2, "B/c"): (1, 1, 1.0),
        (3, "A/a/x"): (2, 1, 1 / 2),
        (3, "A/a/y"): (1, 1, 1.0),
        (3, "A/b/mode/mean"): (2, 1, 1 / 2),     # a '/' inside cate2 stays one concept
        (3, "B/c/w"): (1, 1, 1.0),
    }
    items = dict(store.query("SELECT item_id, cate2 FROM conceptmath_item_verdicts "
                             "WHERE run_id = 'hand' AND grader = 'official'"))
    assert items["element_en/4"] == "mode/mean"


def test_unmastered_ranking(hand_made):
    """The ranking (conceptmath_lowest, here of every concept), and the view of unmastered
    concepts that leaves out those with fewer than 5 graded problems: all of these."""
    store, _, _ = hand_made
    ranked = store.query("SELECT rank, concept, accuracy FROM conceptmath_lowest(1) "
                         "WHERE run_id = 'hand' AND grader = 'official' AND level = 3 "
                         "ORDER BY rank")
    # 0.5 twice (n=2 each: by name), then 1.0 twice (n=1 each: by name).
    assert ranked == [(1, "A/a/x", 0.5), (2, "A/b/mode/mean", 0.5), (3, "A/a/y", 1.0),
                      (4, "B/c/w", 1.0)]
    level2 = store.query("SELECT rank, concept FROM conceptmath_lowest(1) WHERE run_id = "
                         "'hand' AND grader = 'official' AND level = 2 ORDER BY rank")
    assert level2 == [(1, "A/b"), (2, "A/a"), (3, "B/c")]
    assert store.query("SELECT conceptmath_unmastered_min_n()") == [(5,)]
    assert store.query("SELECT count(*) FROM conceptmath_unmastered WHERE level > 1") == [(0,)]
    # level 1's "A" has 5 problems: the one concept that may be called unmastered
    assert store.query("SELECT concept, n, rank FROM conceptmath_unmastered "
                       "WHERE grader = 'official'") == [("A", 5, 1)]


def test_ties_go_to_the_concept_with_more_problems(tmp_path, db):
    root = make_conceptmath_dir(tmp_path / "data", {"element_en": [
        row("element_en", 1, "A", "a", "big", "1"), row("element_en", 2, "A", "a", "big", "2"),
        row("element_en", 3, "A", "a", "aaa", "3")]})
    store = Store(db)
    runs.import_official(store, conceptmath.benchmark, root, results_file(
        tmp_path / "r.jsonl", root, {1: wrong(1), 2: wrong(2), 3: wrong(3)}), "t")
    assert store.query("SELECT rank, concept FROM conceptmath_lowest(1) WHERE level = 3 AND "
                       "grader = 'official' ORDER BY rank") == [(1, "A/a/big"), (2, "A/a/aaa")]


def test_mean_concept_accuracy_over_zero_shot_runs_one_per_model(hand_made):
    """Paper Fig. 5: averaged over models, each by one zero-shot run (the one with the most
    problems, then the latest); other settings and imported runs never enter."""
    store, root, _ = hand_made                 # holds the import 'hand' (setting 'official')
    dataset = runs.prepare(store, conceptmath.benchmark, root)
    ids = [f"element_en/{i}" for i in range(1, 7)]

    def run(run_id, model, setting, right_ones, started, only=None):
        chosen = only or ids
        _live_run(store, dataset, run_id, model, setting,
                  {iid: int(iid.split("/")[1]) in right_ones for iid in chosen}, started)

    run("m1-zs", "m1", "zs", {1, 3, 4, 6}, "2024-01-01")
    run("m1-zs-later", "m1", "zs", {1, 2}, "2024-02-01", only=ids[:2])   # fewer problems
    run("m1-fs", "m1", "fs", set(range(1, 7)), "2024-03-01")             # not zero-shot
    run("m2-zs", "m2", "zs", {2, 3, 4, 5, 6}, "2024-01-05")
    run("m2-cot", "m2", "zs-cot", set(), "2024-03-01")                   # not zero-shot
    run("m3-old", "m3", "zs", set(), "2024-01-01")
    run("m3-new", "m3", "zs", set(range(1, 7)), "2024-03-01")            # same n: the latest
    chosen = dict(store.query("SELECT model, run_id FROM conceptmath_mean_concept_runs "
                              "WHERE grader = 'official' AND system = 'element_en'"))
    assert chosen == {"m1": "m1-zs", "m2": "m2-zs", "m3": "m3-new"}
    got = {concept: (n, mean) for concept, n, mean in store.query(
        "SELECT concept, n_models, mean_accuracy FROM conceptmath_mean_concept_accuracy "
        "WHERE grader = 'official' AND level = 3")}
    # (problem 4 is wrong in every run: its gold is the list [2,3], which the authors' grader
    # reads in "the answer is [2,3]." as the number 23)
    assert got == {"A/a/x": (3, pytest.approx((1 / 2 + 1 / 2 + 1) / 3)),
                   "A/a/y": (3, pytest.approx((1 + 1 + 1) / 3)),
                   "A/b/mode/mean": (3, pytest.approx((0 + 1 / 2 + 1 / 2) / 3)),
                   "B/c/w": (3, 1.0)}
    (level1,), = store.query("SELECT mean_accuracy FROM conceptmath_mean_concept_accuracy "
                             "WHERE grader = 'official' AND level = 1 AND concept = 'A'")
    assert level1 == pytest.approx((2 / 5 + 3 / 5 + 4 / 5) / 3)


def test_grader_disagreement(tmp_path, db):
    root = make_conceptmath_dir(tmp_path / "data")
    answers = {
        1: "The answer is 5 or 6.",             # official: right (5 is there); strict: a hedge
        2: "The answer is 7.",                  # both right
        3: "The answer is \\frac{1}{4}.",       # official: 1 and 4, neither 0.25; strict: right
        5: "The answer is 41.",                 # official: within 1 of 40; strict: wrong
    }
    store = Store(db)
    runs.import_official(store, conceptmath.benchmark, root,
                             results_file(tmp_path / "r.jsonl", root, answers), "d")
    rows = store.query("SELECT item_id, system, official, strict, response FROM "
                       "conceptmath_grader_disagreement ORDER BY item_id")
    assert rows == [("element_en/1", "element_en", True, False, answers[1]),
                    ("element_en/3", "element_en", False, True, answers[3]),
                    ("element_en/5", "element_en", True, False, answers[5])]


def _live_run(store: Store, dataset, run_id: str, model: str, setting: str,
              correct: dict[str, bool], started: str) -> None:
    """A run as the eval flow leaves it: responses appended, graded by the adapter's graders."""
    store.start_run(RunSpec(run_id, "conceptmath", model, "fake", setting, {}), len(correct))
    by_id = dataset.by_id()
    store.append_responses(run_id, [
        (iid, f"h-{run_id}-{iid}", Completion(text=(right if ok else wrong)(by_id[iid].gold)))
        for iid, ok in correct.items()])
    runs.grade_run(store, conceptmath.benchmark, dataset, run_id)
    store.finish_run(run_id, "completed")
    store.query("UPDATE runs SET started_at = ?::TIMESTAMP WHERE run_id = ?", [started, run_id])


def test_table2_row_and_report(tmp_path, db):
    root = make_conceptmath_dir(tmp_path / "data")
    store = Store(db)
    dataset = runs.prepare(store, conceptmath.benchmark, root)
    one_each = ["element_en/1", "element_zh/1", "middle_en/1", "middle_zh/1"]
    _live_run(store, dataset, "zs-old", "m", "zs", dict.fromkeys(one_each, False), "2024-01-01")
    _live_run(store, dataset, "zs-new", "m", "zs",
              {"element_en/1": True, "element_en/2": False, "element_zh/1": True,
               "middle_en/1": True, "middle_zh/1": False}, "2024-02-01")
    _live_run(store, dataset, "fs", "m", "fs", dict.fromkeys(one_each, True), "2024-01-15")
    _live_run(store, dataset, "other", "other-model", "zs-cot", dict.fromkeys(one_each, True),
              "2024-03-01")
    cells = {(s, sys): (rid, acc) for s, rid, sys, acc in store.query(
        "SELECT setting, run_id, system, accuracy FROM conceptmath_table2('fs', 'official')")}
    assert cells == {("zs", "element_en"): ("zs-new", 0.5), ("zs", "element_zh"): ("zs-new", 1.0),
                     ("zs", "middle_en"): ("zs-new", 1.0), ("zs", "middle_zh"): ("zs-new", 0.0),
                     ("fs", "element_en"): ("fs", 1.0), ("fs", "element_zh"): ("fs", 1.0),
                     ("fs", "middle_en"): ("fs", 1.0), ("fs", "middle_zh"): ("fs", 1.0)}
    # Asked for the older zs run itself, its own setting's cell is that run.
    (rid,), = store.query("SELECT DISTINCT run_id FROM conceptmath_table2('zs-old', 'official') "
                          "WHERE setting = 'zs'")
    assert rid == "zs-old"

    report = reports.build(store, "fs", "official")
    # Table 2's row in the report of run fs: that run's cells alone (the model's zs run is
    # another run: compare puts them side by side), and their average
    t2 = figures(report, "table2")
    systems = ["element_en", "middle_en", "element_zh", "middle_zh"]
    assert list(t2) == [f"system:{s}@fs" for s in systems] + ["average"]
    assert {f["setting"]: f["run_id"] for f in t2.values() if "setting" in f} == {"fs": "fs"}
    assert t2["average"]["value"] == pytest.approx(1.0)
    assert report["grader"] == "official"
    assert report["notes"][0].startswith("grader official: the authors' grader")
    assert "Table 2's Avg. is over the 4 cell(s) of this run, its setting FS" in \
        " ".join(report["notes"])
    # the model's row across settings is what comparing its runs shows
    (b,) = compare.compare(store, ["zs-new", "fs"]).benchmarks
    (row,) = b.model_rows["table2"]
    assert row.runs == {"zs": "zs-new", "fs": "fs"}
    assert row.average.value == pytest.approx((0.5 + 1 + 1 + 0 + 4) / 8)
    acc = figures(report, "accuracy")
    assert acc["all"]["value"] == 1.0 and acc["all"]["n"] == 4
    # one leaf per system, each of 1 or 2 problems: none has the 5 an unmastered one needs
    assert not [n for n in report["notes"] if n.startswith("unmastered")]
    assert terminal.flat(report)
    json.dumps(report, default=str)
    from rich.console import Console
    for width in (200, 60):
        console = Console(record=True, width=width)
        console.print(reports.render(report, width))
        text = console.export_text()
        assert "Table 2" in text and "Elementary-EN" in text and "grader official" in text
    strict = reports.build(store, "zs-new", "strict")
    assert strict["grader"] == "strict"
    assert figure(strict, "system:element_en", "accuracy")["n"] == 2


def test_a_store_made_before_the_labels_table_keeps_its_figures(hand_made):
    """The views read each problem's system and concept levels from conceptmath_items. A store
    written before that table existed (its problems' labels only in their JSON payloads) gets
    the table when this version opens it, and every figure stays what it was."""
    store, _, _ = hand_made
    views = ("conceptmath_accuracy", "conceptmath_concept_accuracy", "conceptmath_figure_units")
    want = {v: store.query(f"SELECT * FROM {v} ORDER BY ALL") for v in views}
    labels = store.query("SELECT * FROM conceptmath_items ORDER BY ALL")
    assert len(labels) == 9 and ("element_en/4", "element_en", "A", "b", "mode/mean") in labels
    path = store.path
    store.close()
    con = duckdb.connect(str(path))            # what an older mathprobe leaves
    con.execute("DROP TABLE conceptmath_items")
    con.execute("UPDATE store_meta SET value = 'an older version' WHERE key = 'sql_layer'")
    con.close()
    reopened = Store(path)
    try:
        assert reopened.query("SELECT * FROM conceptmath_items ORDER BY ALL") == labels
        assert {v: reopened.query(f"SELECT * FROM {v} ORDER BY ALL") for v in views} == want
    finally:
        reopened.close()
