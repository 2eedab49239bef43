"""CMMaTH end to end: answers through the eval flow, graded by the cascade (rules, then a judge
served by the loopback test server, which also returns malformed verdicts), the whole published
sample through the text+OCR setting, and the judge audit against GPT-4's verdicts."""
from __future__ import annotations

import hashlib
import json

import pytest
from typer.testing import CliRunner

from mathprobe.benchmarks import cmmath
from mathprobe.cli.main import app
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow as _eval_flow
from mathprobe.store import open_store


def eval_flow(**params):
    """The eval flow as the command line runs it: its report, also for a run whose judge left
    verdicts missing (its flow run ends Failed 'Incomplete: ...')."""
    return call_flow(_eval_flow, **params)


pytestmark = pytest.mark.usefixtures("prefect_harness")
JUDGE = "openai:fake-judge"


def between(text: str, start: str, end: str) -> str:
    """The text between the last `start` and the `end` after it (the judge prompt's worked
    examples come first; the answer it is asked about comes last)."""
    i = text.rfind(start)
    j = text.find(end, i + len(start))
    return text[i + len(start):j] if i >= 0 and j >= 0 else ""


class Replies:
    """The fake model answers in varied ways; the fake judge says Yes when the reference answer
    appears in the response, and every `malformed_every`-th judgment has no verdict."""

    def __init__(self, malformed_every: int | None = 5):
        self.malformed_every = malformed_every
        self.judged = 0

    def __call__(self, payload: dict, prompt: str) -> str:
        # the authors' GPT-4 judge prompt is one user message
        if "You are an answer evaluation assistant" not in prompt:
            k = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 3
            return ["故选A", "The answer is 3.", "所以答案是 2"][k]
        self.judged += 1
        if self.malformed_every and self.judged % self.malformed_every == 0:
            return "Hmm, hard to say."
        reference = between(prompt, "Reference Answer: ", "\nModel Response: ").strip()
        response = between(prompt, "Model Response: ", "\nJudgment Result")
        verdict = "Yes" if reference and reference in response else "No"
        return f"The relevant paragraph ... The consistency of the answers is: <{verdict}>."


@pytest.fixture
def api(fake_openai):
    return fake_openai


# A stratified quarter of the sample (the whole of it is the OCR test's): 17 s for all 1000, most
# of it the rule grader parsing each question's references and options once (math-verify).
LIMIT = 250


def test_cascade_with_a_flaky_judge(api, data_dir, db):
    api.reply = Replies(malformed_every=5)
    report = eval_flow(benchmark="cmmath", model="openai:fake-model", setting="text",
                       run_id="cm", db=str(db), data_dir=str(data_dir), concurrency=32,
                       judge=JUDGE, limit=LIMIT)
    n = len(cmmath.benchmark.select(cmmath.load(data_dir).items, LIMIT))
    assert LIMIT * 0.9 <= n <= LIMIT and report["run"]["n_ok"] == n
    store = open_store(db)
    rules = dict(store.query("SELECT item_id, correct FROM verdicts WHERE run_id = 'cm' "
                             "AND grader = 'rules'"))
    undecided = n - len(rules)
    assert 0 < undecided < n
    judge_run = store.run(f"cm@judge:{JUDGE}")
    assert judge_run["n_items"] == judge_run["n_responses"] == undecided
    failed = judge_run["n_judge_failed"]
    assert failed == pytest.approx(undecided / 5, abs=2) and judge_run["input_tokens"] > 0
    cascade = dict(store.query(f"SELECT item_id, correct FROM verdicts WHERE run_id = 'cm' "
                               f"AND grader = 'cascade:{JUDGE}'"))
    assert len(cascade) == n - failed                    # judge_failed: no verdict, not wrong
    assert all(cascade[i] == v for i, v in rules.items())          # rules decide first
    judged = dict(store.query(f"SELECT item_id, correct FROM verdicts WHERE run_id = 'cm' "
                              f"AND grader = 'judge:{JUDGE}'"))
    assert set(judged) == set(cascade) - set(rules)
    # the report defaults to the cascade and accounts for the judge
    assert report["grader"] == f"cascade:{JUDGE}"
    assert report["judges"][0]["n_judge_failed"] == failed
    # every answer counts; the judge_failed ones as undecided (not right), shown apart
    (n_cascade, n_undecided), = store.query(
        f"SELECT n, n_undecided FROM cmmath_paper_accuracy WHERE run_id = 'cm' AND "
        f"grader = 'cascade:{JUDGE}' AND answer_type = 'all'")
    assert (n_cascade, n_undecided) == (n, failed)
    assert f"{failed} undecided, counted as not right" in report["notes"][0]
    # the judge's own run holds replies, not answers: it is in no CMMaTH figure
    assert store.query("SELECT DISTINCT run_id FROM cmmath_answers") == [("cm",)]

    # --retry-failed re-asks the judge only where it gave no verdict; no model call is repeated
    api.reply = Replies(malformed_every=None)
    served = api.served
    report = eval_flow(benchmark="cmmath", model="openai:fake-model", setting="text",
                       run_id="cm", db=str(db), data_dir=str(data_dir), concurrency=32,
                       judge=JUDGE, retry_failed=True, limit=LIMIT)
    assert api.served - served == failed
    assert report["judges"][0]["n_judge_failed"] == 0
    assert store.query(f"SELECT count(*) FROM verdicts WHERE run_id = 'cm' "
                       f"AND grader = 'cascade:{JUDGE}'") == [(n,)]
    # and a plain re-run asks nobody anything
    served = api.served
    eval_flow(benchmark="cmmath", model="openai:fake-model", setting="text", run_id="cm",
              db=str(db), data_dir=str(data_dir), concurrency=32, judge=JUDGE, limit=LIMIT)
    assert api.served == served


def test_text_ocr_setting_with_the_baseline_and_a_judge(api, data_dir, db):
    api.reply = Replies(malformed_every=None)
    report = eval_flow(benchmark="cmmath", model="baseline:random", setting="text+ocr",
                       run_id="ocr", db=str(db), data_dir=str(data_dir), concurrency=64,
                       judge=JUDGE)
    assert report["run"]["n_ok"] == 1000 and report["grader"] == f"cascade:{JUDGE}"
    store = open_store(db)
    assert store.query(f"SELECT count(*) FROM verdicts WHERE run_id = 'ocr' "
                       f"AND grader = 'cascade:{JUDGE}'") == [(1000,)]
    # the judge has no price: its cost is unknown, not $0.0000
    from rich.console import Console

    from mathprobe.reports import render
    console = Console(record=True, width=400)
    console.print(render(report, 400))
    judge_line = next(line for line in console.export_text().splitlines()
                      if line.startswith(f"judge {JUDGE}:"))
    assert "cost unknown (no price for this model" in judge_line
    # the text+ocr setting gives the model the OCR caption too
    item = next(i for i in cmmath.load(data_dir).items if i.payload.get("ocr"))
    assert cmmath.build_prompt(item, "text+ocr") != cmmath.build_prompt(item, "text")


def test_judge_audit_with_a_judge_backend(api, data_dir, db):
    api.reply = Replies(malformed_every=10)
    result = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--data-dir",
                                      str(data_dir), "--judge", JUDGE, "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["grader"]: r for r in json.loads(result.output)}
    assert set(rows) == {"rules", f"judge:{JUDGE}", f"cascade:{JUDGE}"}
    judge, cascade, rules = rows[f"judge:{JUDGE}"], rows[f"cascade:{JUDGE}"], rows["rules"]
    assert judge["n"] == cascade["n"] == rules["n"] == 426
    assert judge["undecided_share"] == pytest.approx(0.1, abs=0.01)       # malformed verdicts
    assert cascade["undecided_share"] < rules["undecided_share"]
    for r in rows.values():
        assert r["tp"] + r["fp"] + r["tn"] + r["fn"] == r["n_decided"]
    # judge calls are cached: a second audit sends nothing new except the failed ones
    served = api.served
    CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--data-dir", str(data_dir),
                             "--judge", JUDGE, "--json"])
    assert api.served - served == 426 // 10


def test_judge_audit_with_a_served_gradegpt(api, data_dir, db):
    """`--judge BACKEND:NAME#prompt=gradegpt,verdict=official`: the backend gets BACKEND:NAME,
    the requests are GradeGPT's chat turns exactly as in the authors' instruction data, and the
    authors' rule reads the verdicts ("Yes" anywhere: no reply is judge_failed)."""
    lines = (data_dir / "cmmath" / "gradegpt_judgments_sample.jsonl").read_text(
        encoding="utf-8").splitlines()

    def text(content) -> str:        # a message's content: a string or text parts
        return content if isinstance(content, str) else "".join(p["text"] for p in content)

    def gradegpt(payload: dict, prompt: str) -> str | None:
        user = text(payload["messages"][-1]["content"])
        return "Hmm. Yes, I think so." if "\nQuestion: " in user else None

    api.reply = gradegpt
    judge = "openai:gradegpt-7b#prompt=gradegpt,verdict=official"
    result = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--data-dir",
                                      str(data_dir), "--judge", judge, "--limit", "5", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["grader"]: r for r in json.loads(result.output)}
    judged = rows[f"judge:{judge}"]        # every reply says Yes somewhere: all decided, right
    assert judged["n_decided"] == 5 and judged["tp"] + judged["fp"] == 5
    sent = [r["body"]["messages"] for r in api.requests if r["body"].get("model") == "gradegpt-7b"]
    assert len(sent) == 5
    assert sorted([(m["role"], text(m["content"])) for m in messages] for messages in sent) == \
        sorted([(m["role"], m["content"]) for m in json.loads(line)["messages"][:2]]
               for line in lines[:5])            # sent concurrently: compared as a set
    # an option the judge does not have is a clear error before anything is sent
    bad = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--data-dir", str(data_dir),
                                   "--judge", "openai:x#prompt=chatgpt", "--limit", "1"])
    assert bad.exit_code != 0 and "prompt='chatgpt'" in bad.output + str(bad.exception)


def test_mathprobe_judge_rejudges_a_stored_run(api, data_dir, db):
    """`mathprobe judge RUN --judge B:M`: another judge model on a stored run; the evaluated
    model is asked nothing again, the new judge only about what the rules left undecided (its
    failures judge_failed, never verdicts), with its tokens and cost; a second time asks
    nothing; --repeat 2 asks the same judge again and shows how far it agrees with itself."""
    api.reply = Replies(malformed_every=None)
    eval_flow(benchmark="cmmath", model="openai:fake-model", setting="text", run_id="cm",
              db=str(db), data_dir=str(data_dir), concurrency=32, judge=JUDGE, limit=80)
    store = open_store(db)
    (undecided,), = store.query("SELECT count(*) FROM current_responses c WHERE run_id = 'cm' "
                                "AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.run_id = 'cm' "
                                "AND v.item_id = c.item_id AND v.grader = 'rules')")
    store.close()

    def model_calls():
        return sum(1 for r in api.requests if r["body"].get("model") == "fake-model")

    asked_model = model_calls()
    other = "openai:gpt-4o-mini"                   # a priced model name, served by the fake
    api.reply = Replies(malformed_every=4)
    out = CliRunner().invoke(app, ["judge", "cm", "--judge", other, "--db", str(db),
                                   "--data-dir", str(data_dir), "--json"])
    assert out.exit_code == 3, out.output          # some judge_failed: incomplete, not wrong
    result = json.loads(out.stdout)["judges"][0]
    assert model_calls() == asked_model            # nothing re-asked of the evaluated model
    assert result["asked_about"] == undecided == result["asked"]
    assert result["judge_failed"] == pytest.approx(undecided / 4, abs=1)
    assert result["judged"] == undecided - result["judge_failed"]
    assert result["input_tokens"] > 0 and result["cost_usd"] > 0 and result["priced"]
    store = open_store(db)
    verdicts = dict(store.query("SELECT grader, count(*) FROM verdicts WHERE run_id = 'cm' "
                                "GROUP BY grader"))
    assert verdicts[f"judge:{other}"] == result["judged"]
    assert verdicts[f"cascade:{other}"] == verdicts["rules"] + result["judged"]
    store.close()
    # the run's report names both judges, what they cost and their judge_failed counts
    report = json.loads(CliRunner().invoke(app, ["report", "--run-id", "cm", "--db", str(db),
                                                 "--json"]).stdout)
    judges = {j["model"]: j for j in report["judges"]}
    assert judges[other]["n_judge_failed"] == result["judge_failed"]
    assert judges[other]["cost_usd"] == pytest.approx(result["cost_usd"])
    assert judges[other]["n_from_judge"] == result["judged"]
    assert judges[other]["n_from_rules"] == verdicts["rules"]
    # judging again asks nothing; --retry-failed asks only where no verdict came
    served = api.served
    again = CliRunner().invoke(app, ["judge", "cm", "--judge", other, "--db", str(db),
                                     "--data-dir", str(data_dir), "--json"])
    assert json.loads(again.stdout)["judges"][0]["asked"] == 0 and api.served == served
    api.reply = Replies(malformed_every=None)
    fixed = CliRunner().invoke(app, ["judge", "cm", "--judge", other, "--db", str(db),
                                     "--data-dir", str(data_dir), "--retry-failed", "--json"])
    assert fixed.exit_code == 0, fixed.output
    assert api.served - served == result["judge_failed"]
    # the same judge asked twice: the second asking is its own run, asked again, and compared
    twice = CliRunner().invoke(app, ["judge", "cm", "--judge", JUDGE, "--db", str(db),
                                     "--data-dir", str(data_dir), "--repeat", "2", "--json"])
    assert twice.exit_code == 0, twice.output
    body = json.loads(twice.stdout)
    first, second = body["judges"]
    assert first["asked"] == 0 and second["asked"] == undecided     # no cache for a repeat
    (pair,) = body["repeats"]
    assert pair["grader_b"] == f"judge:{JUDGE}#repeat=2" and pair["n_both"] == undecided
    assert pair["agreement"] == 1.0                # this fake judge is deterministic
    served = api.served                            # judge-audit --repeat: both askings stored
    audited = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--data-dir", str(data_dir),
                                       "--run", "cm", "--judge", JUDGE, "--repeat", "2", "--json"])
    assert audited.exit_code == 0, audited.output
    assert api.served == served
    (same,) = json.loads(audited.stdout)
    assert (same["grader_b"], same["kappa"], same["disagreements"]) == (
        f"judge:{JUDGE}#repeat=2", pair["kappa"], [])
    # the judge audit of two graders of the run: the answers they disagree on, listed
    audit = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--run", "cm", "--graders",
                                     f"rules,cascade:{other}", "--json"])
    assert audit.exit_code == 0, audit.output
    (row,) = json.loads(audit.stdout)
    assert row["n_both"] == verdicts["rules"] and row["agreement"] == 1.0   # rules decide first
    text = CliRunner().invoke(app, ["judge-audit", "--db", str(db), "--run", "cm", "--graders",
                                    f"judge:{JUDGE},judge:{other}"])
    assert text.exit_code == 0 and "Cohen's kappa" in text.output and "confusion" in text.output
