"""The run card: stored with every run, shown by `mathprobe card RUN` (JSON and Markdown), in
the HTML report and beside exports; two runs whose cards differ show it in `compare`; an API
key never reaches a card, the store or the report (a canary key is set and looked for)."""
from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import duckdb
import pytest

from mathprobe.store import Store
from tests.support.cli import cli_env, mathprobe
from tests.support.fake_api import FakeAPI

CANARY = "sk-canary-" + secrets.token_hex(12)
SERVED = "gpt-4o-mini-2024-07-18"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, data_dir, prefect_harness):
    """Two WE-MATH runs of an OpenAI model on a loopback server (which reports a dated
    snapshot as the model), the second at another temperature; the key is a canary."""
    tmp = tmp_path_factory.mktemp("card")
    db = tmp / "store.duckdb"
    api = FakeAPI(served_model=SERVED).start()
    env = cli_env(api, OPENAI_API_KEY=CANARY, COLUMNS="200")
    try:
        for run_id, temperature in (("a", "0"), ("b", "0.7")):
            done = mathprobe("run", "--benchmark", "wemath", "--model", "openai:gpt-4o-mini",
                             "--limit", "12", "--run-id", run_id, "--db", str(db),
                             "--data-dir", str(data_dir), "--temperature", temperature,
                             "--concurrency", "3", env=env)
            assert done.returncode == 0, done.stderr[-3000:]
    finally:
        api.stop()
    return db, env, tmp


def test_the_card_shows_every_field(two_runs, data_dir):
    db, env, _ = two_runs
    done = mathprobe("card", "a", "--db", str(db), "--json", env=env)
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    assert card["recorded"] is True
    assert card["software"]["mathprobe"] and card["software"]["duckdb"]
    files = {f["path"]: f["sha256"] for f in card["data"]["files"]}
    testmini = data_dir / "wemath" / "testmini.json"
    assert files["wemath/testmini.json"] == hashlib.sha256(testmini.read_bytes()).hexdigest()
    assert "wemath/knowledge_structure_nodes.json" in files
    assert card["benchmark"]["setting"] == card["run"]["setting"] == "plain"
    assert len(card["benchmark"]["prompts"]["sha256"]) == 64
    n = card["counts"]["items"]                 # --limit 12: whole problems, about 12 questions
    assert 8 <= n <= 12 and card["benchmark"]["prompts"]["items"] == n
    assert card["model"] == {"spec": "openai:gpt-4o-mini", "backend": "openai",
                             "endpoint": card["model"]["endpoint"]}
    assert card["model"]["endpoint"].startswith("http://127.0.0.1:")
    assert card["served_models"] == {SERVED: n}             # what the server said answered
    assert card["generation"] == {"temperature": 0.0, "max_tokens": 1024}
    assert card["graders"]["rules"] == ["official"] and card["verdicts"] == {"official": n}
    assert card["seeds"]["sampling"] == 0 and card["seeds"]["bootstrap"] == 20240611
    assert card["sampling"]["limit"] == 12 and card["execution"]["concurrency"] == 3
    assert card["timing"]["started_at"] and card["timing"]["finished_at"]
    assert card["tokens"]["input"] > 0 and card["tokens"]["output"] > 0
    assert card["cost_usd"] >= 0
    assert card["counts"]["ok"] == n and card["counts"]["infra_failed"] == 0
    (session,) = card["sessions"]
    assert session["concurrency"] == 3 and session["mathprobe"] == card["software"]["mathprobe"]
    md = mathprobe("card", "a", "--db", str(db), env=env).stdout
    assert md.startswith("# Run card: a")
    for heading in ("## Software", "## Data", "## Benchmark", "## Model", "## Generation",
                    "## Seeds", "## Execution", "## Graders", "## Timing", "## Counts",
                    "## Tokens", "## Served models"):
        assert heading in md, heading
    assert f"| {SERVED} | {n} |" in md


def test_compare_shows_what_differs_between_two_cards(two_runs):
    db, env, _ = two_runs
    done = mathprobe("compare", "a", "b", "--db", str(db), "--json", "--resamples", "100",
                     env=env)
    assert done.returncode == 0, done.stderr
    (section,) = [s for s in json.loads(done.stdout)["sections"]
                  if s["title"].startswith("Run cards: what differs")]
    rows = {r[1]: (r[2], r[3]) for r in section["rows"]}
    assert rows["generation.temperature"] == ("0.0", "0.7")
    assert rows["run.params.temperature"] == ("0.0", "0.7")
    assert "data.files" not in rows and "benchmark.prompts.sha256" not in rows   # the same
    text = mathprobe("compare", "a", "b", "--db", str(db), "--resamples", "100", env=env).stdout
    assert "Run cards: what differs from the baseline a" in text


def test_no_key_reaches_the_card_the_store_or_the_report(two_runs):
    db, env, tmp = two_runs
    html = tmp / "report.html"
    done = mathprobe("report", "--db", str(db), "--html", str(html), "--runs", "a,b", env=env)
    assert done.returncode == 0, done.stderr
    page = html.read_text(encoding="utf-8")
    assert "Run cards" in page and SERVED in page and 'data-run="a"' in page
    out = tmp / "export"
    for run_id in ("a", "b"):                  # one folder per run (export refuses to mix)
        assert mathprobe("export", run_id, "--db", str(db), "--format", "vlmevalkit", "--out",
                         str(out / run_id), env=env).returncode == 0
    texts = [page, db.read_bytes().decode("latin-1")]
    texts += [mathprobe("card", r, "--db", str(db), *flag, env=env).stdout
              for r in ("a", "b") for flag in ((), ("--json",))]
    texts += [p.read_text(encoding="utf-8") for p in out.glob("*/*")]
    wal = Path(f"{db}.wal")
    if wal.exists():
        texts.append(wal.read_bytes().decode("latin-1"))
    assert all(CANARY not in t for t in texts)
    assert any("gpt-4o-mini" in t for t in texts)          # what was looked through is real


def test_a_store_made_before_run_cards_opens_and_shows_what_it_holds(two_runs, tmp_path):
    db, env, _ = two_runs
    old = tmp_path / "old.duckdb"
    old.write_bytes(db.read_bytes())
    con = duckdb.connect(str(old))
    # what an older mathprobe leaves: no card column, no served_model column, its own SQL
    for view in [v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT "
                                           "internal").fetchall()]:
        con.execute(f'DROP VIEW IF EXISTS "{view}" CASCADE')
    con.execute("ALTER TABLE runs DROP COLUMN card")
    con.execute("ALTER TABLE responses DROP COLUMN served_model")
    con.execute("UPDATE store_meta SET value = 'an older version' WHERE key = 'sql_layer'")
    con.close()
    done = mathprobe("card", "a", "--db", str(old), "--json", env=env)
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    assert card["recorded"] is False and card["counts"]["ok"] == card["counts"]["items"] > 0
    assert card["served_models"] == {} and "software" not in card
    md = mathprobe("card", "a", "--db", str(old), env=env).stdout
    assert "made before run cards" in md
    store = Store(old)
    try:
        assert store.card_facts("a") is None
    finally:
        store.close()


def test_a_judge_is_recorded_with_its_prompts_hash(tmp_path):
    """`judging.prepare` records the judge on the judged run's card: its params, how many
    prompts and their SHA-256, the hash of its system prompt."""
    from mathprobe.benchmarks import cmmath
    from mathprobe.runs import import_official, judging
    from tests.benchmarks.cmmath.test_data import make_cmmath_dir, record

    cmmath.load.cache_clear()
    # answers the rules cannot read against these references: the judge's to decide
    root = make_cmmath_dir(tmp_path / "data", [record("001", answer="见解析"),
                                               record("002", answer="略")])
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"problem_id": "001", "response": "答案是 5"},
                                {"problem_id": "002", "response": "答案是 5"}]), encoding="utf-8")
    store = Store(tmp_path / "s.duckdb")
    try:
        import_official(store, cmmath.benchmark, root, path, "r")
        items = cmmath.load(root).by_id()
        requests = judging.prepare(store, cmmath.benchmark, items, "r", "openai:judge-x",
                                   False).requests
        entry = store.card_facts("r")["judges"]["openai:judge-x"]
        assert entry["prompts"] == len(requests) > 0
        h = hashlib.sha256()
        for r in requests:
            h.update((r.system or "").encode() + b"\0" + r.prompt.encode() + b"\0")
        assert entry["prompts_sha256"] == h.hexdigest()
        assert entry["params"] == dict(cmmath.benchmark.judge.params)
    finally:
        store.close()
        cmmath.load.cache_clear()
