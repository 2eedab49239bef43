"""Sampled repeats (issue 35 item 4, docs/sampling.md): `--samples K` asks each item K times as
independent requests (the sample index in the content hash, a per-sample seed where the backend
takes one), stores every answer with its index, and the reports add the mean accuracy over
samples (the item the resampled unit), pass@k (the unbiased estimator), maj@k (ties declared),
the spread between samples, and WE-MATH's four dimensions per sample and on the majority
answers; resume, --max-cost and --retry-failed work per sample; a run of one sample is as it
was. Against a real DuckDB file, real Prefect flow runs and the loopback OpenAI double
(tests/support/fake_api.py) answering as a model sampling at temperature 1."""
from __future__ import annotations

import hashlib
import json
import math
import os

import duckdb
import pytest

from mathprobe.benchmarks import wemath
from mathprobe.errors import MathprobeError
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from mathprobe.store import close_all, open_store
from tests.benchmarks.wemath.helpers import make_wemath_dir
from tests.support.cli import cli_env, error_lines, mathprobe
from tests.support.report import figure
from tests.support.stores import query

MODEL = "openai:gpt-4o-mini"

# Two WE-MATH problems (gold A everywhere): per question, the letter of samples 0, 1, 2. Sample
# s >= 1 is sent `seed: s` (sample 0 none), which the double's `reply` reads. Worked by hand:
#   question     answers  right  pass@2  maj@2 (tie?)   maj@3 (tie?)
#   P q1         A A B    2      1       A right        A right
#   P q2         A B C    1      2/3     A right (tie)  A right (tie, 3 ways)
#   P composite  B B A    1      2/3     B wrong        B wrong
#   Q q1         B C B    0      0       B wrong (tie)  B wrong
#   Q q2         A A A    3      1       A right        A right
#   Q composite  C A C    1      2/3     C wrong (tie)  C wrong
# mean accuracy 8/18; pass@1 = 8/18, pass@2 = (1 + 2/3 + 2/3 + 0 + 1 + 2/3) / 6 = 2/3,
# pass@3 = 5/6 (every question but Q q1 has a right sample); maj@1 = sample 0's = 3/6,
# maj@2 = 3/6 (ties 3/6), maj@3 = 3/6 (ties 1/6); samples' accuracies 3/6, 3/6, 2/6 (SD
# sqrt(1/108)); samples disagree on 5 of 6 questions (not Q q2).
# Four dimensions (2 problems): sample 0: P IG (steps right, composite wrong), Q IK: Score 0.25
# under both rules; sample 1: P IK, Q RM strict / CM loose: Score 0 strict, 0.5 loose; sample
# 2: P RM, Q IK: Score 0; the majority answers: P IG, Q IK: Score 0.25, IK 0.5, IG 0.5.
PROBLEMS = {"2steps_1": ("AAB", "ABC", "BBA"), "2steps_2": ("BCB", "AAA", "CAC")}
GRID = {f"{pid} question {n}": letters for pid, qs in PROBLEMS.items()
        for n, letters in enumerate(qs, 1)}


def answer(letter: str) -> str:
    return f"<Thought process>: <<looked at it>> <Answer>: <<{letter}>>"


def scripted(payload: dict, prompt: str) -> str:
    """The grid's letter of the question asked, for the sample its seed names."""
    question = next(q for q in GRID if q in prompt)
    return answer(GRID[question][payload.get("seed", 0)])


def eval_flow(**params):
    return call_flow(_eval_flow, **params)


@pytest.fixture
def api(fake_openai, monkeypatch):
    """The loopback OpenAI double (tests/conftest.py) answering the grid, retrying briefly."""
    fake_openai.reply = scripted
    monkeypatch.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("MATHPROBE_RETRY_BASE_WAIT_S", "0.01")
    return fake_openai


@pytest.fixture
def tiny(tmp_path):
    """The two problems above as a WE-MATH data folder of their own."""
    root = make_wemath_dir(tmp_path / "data", {pid: {"gold": ["A"] * 3,
                                                     "concepts": ["Leaf One"] * 3}
                                               for pid in PROBLEMS})
    wemath.load.cache_clear()
    yield root
    wemath.load.cache_clear()


def asked(api) -> list[tuple[str, int]]:
    """(question, sample) of every chat completion the double answered, in order."""
    return [(next(q for q in GRID if q in r["prompt"]), r["body"].get("seed", 0))
            for r in api.requests if r["path"].endswith("/chat/completions")]


def value(report, key, table=None):
    f = figure(report, key, table)
    assert f["ci_low"] <= f["value"] <= f["ci_high"] and f["ci_low"] < f["ci_high"], f
    return f["value"]


@pytest.mark.usefixtures("prefect_harness")
def test_three_samples_of_each_item_give_the_hand_computed_figures(api, tiny, db):
    report = eval_flow(benchmark="wemath", model=MODEL, run_id="k3", db=str(db),
                       data_dir=str(tiny), temperature=1.0, samples=3)

    bodies = [r["body"] for r in api.requests]
    assert len(bodies) == 18 and {b["temperature"] for b in bodies} == {1.0}
    assert sorted(b.get("seed") for b in bodies if "seed" in b) == [1] * 6 + [2] * 6
    assert sorted(asked(api)) == sorted((q, s) for q in GRID for s in range(3))
    rows = query(db, "SELECT item_id, sample, request_hash, response FROM responses")
    assert len(rows) == 18 and len({r[2] for r in rows}) == 18       # 18 distinct requests
    by_item = {}
    for item_id, sample, _, text in rows:
        by_item.setdefault(item_id, {})[sample] = text
    assert all(sorted(s) == [0, 1, 2] for s in by_item.values()) and len(by_item) == 6
    assert query(db, "SELECT samples FROM runs") == [(3,)]

    assert value(report, "sampled:mean") == pytest.approx(8 / 18)
    assert figure(report, "sampled:mean")["n"] == 18
    assert [value(report, f"pass@{k}") for k in (1, 2, 3)] == pytest.approx([8 / 18, 2 / 3, 5 / 6])
    assert [value(report, f"maj@{k}") for k in (1, 2, 3)] == pytest.approx([1 / 2] * 3)
    assert [value(report, f"maj_tie@{k}") for k in (2, 3)] == pytest.approx([1 / 2, 1 / 6])
    assert [value(report, f"sample:{s}") for s in range(3)] == pytest.approx([1 / 2, 1 / 2, 1 / 3])
    assert value(report, "sampled:sd") == pytest.approx(math.sqrt(1 / 108))
    assert value(report, "sampled:disagree") == pytest.approx(5 / 6)

    # the paper's Table 2 is sample 0's; Table 2 per sample and on the majority answers beside
    assert figure(report, "score.strict", "table2.strict")["value"] == pytest.approx(0.25)
    assert value(report, "s0:score.strict") == pytest.approx(0.25)
    assert figure(report, "s1:score.strict")["value"] == 0
    assert value(report, "s1:score.loose") == pytest.approx(0.5)
    assert figure(report, "s2:score.loose")["value"] == 0
    assert figure(report, "maj:score.strict")["value"] == pytest.approx(0.25)
    assert figure(report, "maj:ik")["value"] == figure(report, "maj:ig")["value"] == 0.5
    assert figure(report, "mean:score.strict")["value"] == pytest.approx(0.25 / 3)
    assert any("3 samples per item" in n and "sample 0" in n for n in report["notes"])
    assert report["run"]["sampled"]["n_ok"] == 18 and report["run"]["n_ok"] == 6

    # compare, the HTML report and the Markdown artifact draw the same figures
    from mathprobe.reports import compare, html
    from mathprobe.reports.markdown import run_markdown

    close_all()
    store = open_store(str(db), read_only=True)
    (b,) = compare.compare(store, ["k3"]).benchmarks
    assert b.figures["k3"]["pass@2"].value == pytest.approx(2 / 3)
    page = db.parent / "k3.html"
    html.write(store, ["k3"], page)
    text = page.read_text()
    assert "pass@k" in text and "maj@k" in text and "on the majority answers" in text
    md, _ = run_markdown(store, report)
    assert "pass@2" in md and "66.67" in md
    close_all()


@pytest.mark.usefixtures("prefect_harness")
def test_an_api_model_at_temperature_1_gives_varied_samples_and_report_json_their_figures(
        api, data_dir, tmp_path):
    """The Done-when line: `--samples 3` stores three answers per item and `report --json`
    gives pass@k and maj@k with intervals; each item's pass@k is the estimator over its
    stored verdicts, recomputed here with math.comb."""
    api.reply = None
    api.sampled = {"": ["A", "B", "C", "D"]}           # every question: a draw per request
    db = tmp_path / "runs.duckdb"
    env = cli_env(api)
    run = mathprobe("run", "--benchmark", "wemath", "--model", MODEL, "--run-id", "t1",
                    "--db", str(db), "--data-dir", str(data_dir), "--limit", "12",
                    "--temperature", "1", "--samples", "3", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = query(db, "SELECT r.item_id, r.sample, r.response, v.correct FROM responses r "
                     "JOIN verdicts v USING (response_id) WHERE v.grader = 'official'")
    items = {i for i, *_ in rows}
    assert len(rows) == 3 * len(items) and len(items) >= 9      # whole problems of about 12
    answers = {}
    for item_id, _, text, _ in rows:
        answers.setdefault(item_id, set()).add(text)
    assert sum(len(a) > 1 for a in answers.values()) > len(items) / 2       # they vary

    shown = mathprobe("report", "--run-id", "t1", "--db", str(db), "--json", env=env)
    assert shown.returncode == 0, shown.stderr[-2000:]
    report = json.loads(shown.stdout)
    right: dict[str, list[bool]] = {}
    for item_id, _, _, correct in rows:
        right.setdefault(item_id, []).append(correct)
    for k in (1, 2, 3):
        f = figure(report, f"pass@{k}")
        hand = sum(1 - math.comb(3 - sum(c), k) / math.comb(3, k)
                   for c in right.values()) / len(right)
        assert f["value"] == pytest.approx(hand) and f["n"] == len(right)
        assert f["ci_low"] <= f["value"] <= f["ci_high"]
        m = figure(report, f"maj@{k}")
        assert m["ci_low"] <= m["value"] <= m["ci_high"] and m["n"] == len(right)


@pytest.mark.usefixtures("prefect_harness")
def test_max_cost_counts_every_sample_and_the_same_command_asks_only_the_missing_ones(
        api, tiny, db, tmp_path, monkeypatch):
    prices = tmp_path / "prices.toml"              # $1 an output token, input free
    prices.write_text('[openai]\n"gpt-4o-mini" = { input = 0, output = 1000000 }\n')
    monkeypatch.setenv("MATHPROBE_PRICES", str(prices))
    from mathprobe.backends import prices as price_module
    price_module.load.cache_clear()
    run = dict(benchmark="wemath", model=MODEL, run_id="budget", db=str(db),
               data_dir=str(tiny), temperature=1.0, samples=3, concurrency=1)
    try:
        first = eval_flow(max_cost=30.0, **run)
        before = asked(api)
        costs = [c for (c,) in query(db, "SELECT cost_usd FROM responses ORDER BY response_id")]
        assert first["run"]["status"] == "stopped_max_cost"
        assert 0 < len(before) < 18 and len(before) == len(costs)
        assert sum(costs) >= 30.0 > sum(costs[:-1])        # stopped once the samples cost it
        assert first["run"]["sampled"]["n_not_asked"] == 18 - len(before)

        again = eval_flow(max_cost=1000.0, **run)
        later = asked(api)[len(before):]
        assert sorted(before + later) == sorted((q, s) for q in GRID for s in range(3))
        assert again["run"]["status"] == "completed"
        assert query(db, "SELECT count(*), count(DISTINCT (item_id, sample)) FROM responses"
                     ) == [(18, 18)]
        assert figure(again, "pass@3")["value"] == pytest.approx(5 / 6)
    finally:
        price_module.load.cache_clear()


@pytest.mark.usefixtures("prefect_harness")
def test_retry_failed_asks_again_only_the_failed_sample(api, tiny, db):
    api.faults = {"2steps_2 question 1": ["400"]}        # its first request refused, for good
    run = dict(benchmark="wemath", model=MODEL, run_id="retry", db=str(db),
               data_dir=str(tiny), temperature=1.0, samples=3)
    first = eval_flow(**run)
    ((failed_sample,),) = query(db, "SELECT sample FROM responses WHERE status = 'infra_failed'")
    assert first["run"]["status"] == "incomplete"
    assert first["run"]["sampled"]["n_infra_failed"] == 1
    assert figure(first, "sampled:mean")["n"] == 17          # left out, not graded wrong
    n = len(api.requests)

    again = eval_flow(retry_failed=True, **run)
    assert asked(api)[n:] == [("2steps_2 question 1", failed_sample)]
    assert again["run"]["status"] == "completed"
    assert figure(again, "sampled:mean")["value"] == pytest.approx(8 / 18)


@pytest.mark.usefixtures("prefect_harness")
def test_a_run_raised_to_more_samples_keeps_its_first_and_asks_the_rest(data_dir, db):
    """baseline:random: each sample a guess of its own; a run of one sample resumed with
    --samples 3 keeps its answers (the same responses) and asks samples 1 and 2 only."""
    run = dict(benchmark="wemath", model="baseline:random", run_id="chance", db=str(db),
               data_dir=str(data_dir), limit=12)
    one = eval_flow(**run)
    first = query(db, "SELECT response_id, item_id, response FROM responses")
    assert one["run"]["samples"] == 1 and "sampled" not in one["run"]
    three = eval_flow(samples=3, **run)
    rows = query(db, "SELECT response_id, item_id, sample, response FROM responses")
    assert [(i, t) for r, i, s, t in rows if s == 0] == [(i, t) for _, i, t in first]
    assert {r for r, *_ in rows if r} >= {r for r, *_ in first}
    assert len(rows) == 3 * len(first)
    differ = {i for _, i, s, t in rows if s > 0 and t != dict((x, y) for _, x, y in first)[i]}
    assert len(differ) > len(first) / 2                 # the guesses vary between samples
    assert three["run"]["samples"] == 3
    assert figure(three, "pass@3")["value"] >= figure(three, "pass@1")["value"]
    with pytest.raises(MathprobeError, match=r"--samples 2: run 'chance' already asks 3"):
        eval_flow(samples=2, **run)


@pytest.mark.usefixtures("prefect_harness")
def test_a_run_of_one_sample_is_as_it_was(api, tiny, db):
    report = eval_flow(benchmark="wemath", model=MODEL, run_id="one", db=str(db),
                       data_dir=str(tiny))
    assert not any("seed" in r["body"] for r in api.requests)
    assert [t["key"] for t in report["tables"]] == ["table2.strict", "table2.loose", "table1",
                                                    "shares", "concepts"]
    assert report["run"]["samples"] == 1 and "sampled" not in report["run"]
    assert not any("samples" in n for n in report["notes"])
    assert query(db, "SELECT DISTINCT sample FROM responses") == [(0,)]
    # the request hash of sample 0 is the one a run made before samples existed
    from mathprobe.runs import build_request

    item = wemath.load(tiny).items[0]
    req = build_request(wemath.benchmark, item, MODEL, "plain", dict(wemath.DEFAULT_PARAMS))
    h = hashlib.sha256(json.dumps({"model": MODEL, "params": req.params, "prompt": req.prompt},
                                  sort_keys=True, ensure_ascii=False).encode())
    h.update(b"\0image\0" + req.image)
    assert req.request_hash == h.hexdigest()
    assert (item.item_id, req.request_hash) in set(query(
        db, "SELECT item_id, request_hash FROM responses"))
    close_all()
    from mathprobe.reports import card

    facts = card.build(open_store(str(db), read_only=True), "one")
    assert "samples" not in facts and "sample_counts" not in facts
    close_all()


@pytest.mark.usefixtures("prefect_harness")
def test_samples_travel_through_batches_with_the_direct_run_s_figures(api, tiny, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv("MATHPROBE_BATCH_POLL_S", "0.2")
    run = dict(benchmark="wemath", model=MODEL, data_dir=str(tiny), temperature=1.0,
               samples=3)
    direct = eval_flow(run_id="direct", db=str(tmp_path / "direct.duckdb"), **run)
    calls = len(api.requests)
    batched = eval_flow(run_id="batched", db=str(tmp_path / "batched.duckdb"), batch=True,
                        **run)
    assert len([r for r in api.requests[calls:] if r["path"].endswith("/chat/completions")]) == 0
    lines = api.batch_lines
    assert len(lines) == 18 and len({x["custom_id"] for x in lines}) == 18
    assert sorted(x["body"].get("seed", 0) for x in lines) == [0] * 6 + [1] * 6 + [2] * 6
    for key in ("sampled:mean", "pass@2", "maj@3", "maj_tie@2", "s1:score.loose"):
        assert figure(batched, key)["value"] == pytest.approx(figure(direct, key)["value"])
    assert query(tmp_path / "batched.duckdb", "SELECT DISTINCT sample FROM batch_requests "
                 "ORDER BY 1") == [(0,), (1,), (2,)]


@pytest.mark.parametrize("args, flag", [
    (["--samples", "0"], "--samples 0: must be at least 1"),
    (["--samples", "101"], "--samples 101: must be at most 100"),
    (["--samples", "3"], "--samples 3: openai:gpt-4o-mini is asked at temperature 0"),
    (["--samples", "3", "--temperature", "0"], "--samples 3: openai:gpt-4o-mini is asked at "
                                               "temperature 0"),
])
def test_bad_samples_are_one_error_line_before_anything(args, flag, tmp_path):
    db = tmp_path / "runs.duckdb"
    env = dict(os.environ, OPENAI_API_KEY="sk-test-samples", OPENAI_BASE_URL="http://127.0.0.1:9")
    out = mathprobe("run", "--benchmark", "wemath", "--model", MODEL, "--run-id", "x",
                    "--db", str(db), "--limit", "6", *args, env=env)
    assert out.returncode == 2, out.stderr[-2000:]
    (line,) = error_lines(out.stderr)
    assert line.startswith(f"error: {flag}")
    assert not db.exists()                               # nothing started


def test_a_backend_with_one_answer_per_item_is_refused_more_samples(tmp_path, data_dir):
    from mathprobe.runs import preflight

    replayed = tmp_path / "answers.jsonl"
    replayed.write_text('{"item_id": "x", "response": "A"}\n')
    with pytest.raises(MathprobeError, match=r"--samples 2: replay:.* has one answer per item"):
        preflight.check_eval(benchmark="wemath", model=f"replay:{replayed}", setting=None,
                             run_id="r", db=tmp_path / "s.duckdb", data_dir=data_dir,
                             samples=2)
    # a reasoning model takes no temperature (it samples at its own): K > 1 is fine
    preflight.check_eval(benchmark="wemath", model="openai:o4-mini", setting=None,
                         run_id="r", db=tmp_path / "s.duckdb", data_dir=data_dir, samples=4)


def store_runs(s, data_dir, limit: int, samples_of: dict[str, int]) -> None:
    """WE-MATH runs of a --limit sample written straight to the store (no model, no flow):
    run r's sample s of each item answered a letter that varies with the item, the sample and
    the run (some right, some wrong), then graded."""
    from mathprobe import runs
    from mathprobe.items import Completion
    from mathprobe.store import RunSpec

    dataset = runs.prepare(s, wemath.benchmark, data_dir)
    items = wemath.select(dataset.items, limit)
    for r, (run_id, k) in enumerate(samples_of.items()):
        s.start_run(RunSpec(run_id, "wemath", "m:0", "m", "plain", {}, samples=k), len(items))
        for sample in range(k):
            s.append_responses(run_id, [(it.item_id, f"h{sample}", Completion(
                text=answer("ABCE"[(n + sample + r) % 4]), sample=sample))
                for n, it in enumerate(items)])
        runs.grade_run(s, wemath.benchmark, dataset, run_id)


def test_a_store_made_before_samples_is_upgraded_in_place_its_verdicts_kept(tmp_path, data_dir):
    """A DuckDB file whose verdicts are keyed by (run, item, grader) and whose tables lack the
    sample columns (as every store made before samples): the next write open rebuilds the
    verdicts under the new key, keeps every row (sample 0), and the figures are as before."""
    from mathprobe.store import Store

    db = tmp_path / "old.duckdb"
    s = Store(db)
    store_runs(s, data_dir, 12, {"old": 1})
    s.finish_run("old", "completed")
    before = s.query("SELECT rule, score, ik, ig FROM wemath_four_dimensional ORDER BY rule")
    verdicts = s.query("SELECT run_id, item_id, grader, response_id, correct FROM verdicts "
                       "ORDER BY ALL")
    s.close()
    close_all()
    con = duckdb.connect(str(db))                    # back to the schema before samples
    con.execute("BEGIN")
    con.execute("CREATE TABLE v_old (run_id VARCHAR NOT NULL, item_id VARCHAR NOT NULL, "
                "grader VARCHAR NOT NULL, response_id BIGINT NOT NULL, extracted VARCHAR, "
                "correct BOOLEAN NOT NULL, graded_at TIMESTAMP DEFAULT current_timestamp, "
                "PRIMARY KEY (run_id, item_id, grader))")
    con.execute("INSERT INTO v_old SELECT * EXCLUDE (sample) FROM verdicts")
    con.execute("DROP TABLE verdicts")
    con.execute("ALTER TABLE v_old RENAME TO verdicts")
    for table in ("responses", "runs", "batch_requests"):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {'samples' if table == 'runs' else 'sample'}")
    con.execute("UPDATE store_meta SET value = 'the layer before samples' WHERE key = 'sql_layer'")
    con.execute("COMMIT")
    con.close()

    s = Store(db)
    try:
        key = s.query("SELECT constraint_column_names FROM duckdb_constraints() WHERE "
                      "table_name = 'verdicts' AND constraint_type = 'PRIMARY KEY'")
        assert key == [(["run_id", "item_id", "sample", "grader"],)]
        assert s.query("SELECT run_id, item_id, grader, response_id, correct FROM verdicts "
                       "ORDER BY ALL") == verdicts
        assert s.query("SELECT DISTINCT sample FROM verdicts") == [(0,)]
        assert s.query("SELECT rule, score, ik, ig FROM wemath_four_dimensional "
                       "ORDER BY rule") == before
        assert s.query("SELECT samples FROM runs") == [(1,)]
        assert s.query("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE "
                       "'verdicts_before%'") == [(0,)]
    finally:
        s.close()
        close_all()


def test_the_sampled_views_asked_for_one_run_read_only_its_rows(tmp_path, data_dir):
    """As every view (tests/store/test_per_run_views.py): a question about one sampled run
    reads that run's responses only, whatever else the store holds."""
    from mathprobe.store import Store
    from tests.store.test_per_run_views import THREADS, VECTOR, _scans

    s = Store(tmp_path / "s.duckdb")
    try:
        store_runs(s, data_dir, 300, {"r0": 3, "r1": 3, "r2": 3, "r3": 1})
        own = dict(s.query("SELECT run_id, count(*) FROM responses GROUP BY run_id"))
        leaks = []
        for view in ("sample_verdicts", "sample_items", "sample_majorities",
                     "sampled_figure_units", "wemath_sample_dimensions",
                     "wemath_sampled_figure_units", "sample_summary",
                     "current_sample_responses"):
            for run_id in ("r1", "r3"):
                plan = json.loads(s.query(f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM "
                                          f"{view} WHERE run_id = ?", [run_id])[0][1])
                for table, rows in _scans(plan, []):
                    if table == "responses" and rows > own[run_id] + VECTOR * THREADS:
                        leaks.append(f"{view} for {run_id}: {rows} rows of {table}")
        assert not leaks, "\n".join(leaks)
        assert s.query("SELECT count(*) FROM sampled_figure_units WHERE run_id = 'r3'") == [(0,)]
        assert s.query("SELECT count(DISTINCT cell) FROM sampled_figure_units "
                       "WHERE run_id = 'r1' AND cell LIKE 'pass@%'") == [(3,)]
    finally:
        s.close()
        close_all()
