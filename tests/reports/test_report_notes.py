"""Every note `report` prints beside a run's figures is in the HTML report too (it showed none),
and in the run's Markdown artifact: failed calls and their reasons, answers cut at the token cap,
WE-MATH's problems left out and what tools dividing by N = 525 print, CMMaTH's undecided answers
and what the figure would be were they right, ConceptMath's grader. The runs are real runs of
the eval flow against the loopback OpenAI double, with failing and cut calls scripted."""
from __future__ import annotations

import html as htmllib
import json
import re

import pytest
from typer.testing import CliRunner

from mathprobe.benchmarks import wemath
from mathprobe.cli.main import app
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow
from mathprobe.reports import markdown, summary
from mathprobe.store import close_all, open_store
from tests.support.fake_api import FakeAPI

pytestmark = [pytest.mark.usefixtures("prefect_harness"), pytest.mark.timeout(600)]
RUNS = ("we-api", "cmm-api", "cm-api")


@pytest.fixture(scope="module")
def db(tmp_path_factory, data_dir):
    db = tmp_path_factory.mktemp("notes") / "runs.duckdb"
    api = FakeAPI().start()
    items = wemath.select(wemath.load(data_dir).items, 12)
    for item in items[:2]:                                  # two calls fail for good
        api.always[f"Question: {item.question}\nOption: {item.payload['option']}"] = "503"
    long = f"Question: {items[5].question}\n"
    # one reply is cut at the token cap inside its reasoning (a reasoning model's: truncated)
    api.reply = lambda payload, prompt: ("<think>" + "step " * 40 + "</think><Answer>: <<A>>"
                                         if long in prompt else None)
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("OPENAI_BASE_URL", api.openai_url)
            env.setenv("OPENAI_API_KEY", "sk-test")
            env.setenv("MATHPROBE_RETRY_MAX_ATTEMPTS", "1")
            common = {"model": "openai:m", "db": str(db), "data_dir": str(data_dir)}
            call_flow(eval_flow, benchmark="wemath", run_id="we-api", limit=12,
                      **{**common, "model": "openai:m#reasoning"}, max_tokens=30)
            api.reply = lambda payload, prompt: "我不会做这道题。"           # undecided
            call_flow(eval_flow, benchmark="cmmath", run_id="cmm-api", limit=20, **common)
            api.reply = None
            call_flow(eval_flow, benchmark="conceptmath", run_id="cm-api", limit=10, **common)
    finally:
        api.stop()
        close_all()
    return db


def _printed(db, run_id: str) -> list[str]:
    """The notes `report --json` lists for the run (what `report` prints in yellow)."""
    done = CliRunner().invoke(app, ["report", "--db", str(db), "--run-id", run_id, "--json"])
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    return [line.strip() for line in out.get("failed_calls", []) + out["notes"]]


def test_the_runs_have_the_notes_a_reader_needs(db):
    we, cmm, cm = (" ".join(_printed(db, r)) for r in RUNS)
    for text in ("2 call(s) failed (infra_failed)", "x HTTP 503", "cut at",
                 "left out of every figure", "divide by N = 525"):
        assert text in we, text
    assert "undecided, counted as not right" in cmm and "were they all right" in cmm
    assert "grader official" in cm


def test_the_html_report_shows_every_note_report_prints(db, tmp_path):
    out = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", "--db", str(db), "--html", str(out), "--runs",
                                    ",".join(RUNS)])
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    for run_id in RUNS:
        block = re.search(rf'<ul class="run-notes" data-run="{run_id}">(.*?)</ul>', page, re.S)
        assert block, run_id
        shown = [htmllib.unescape(re.sub(r"<[^>]+>", "", li)).removeprefix(f"{run_id}: ")
                 for li in re.findall(r"<li[^>]*>(.*?)</li>", block[1], re.S)]
        assert shown == _printed(db, run_id), run_id
    # a single run's report says them too, without the run's name before each
    done = CliRunner().invoke(app, ["report", "--db", str(db), "--html", str(out), "--run-id",
                                    "cmm-api"])
    assert done.exit_code == 0, done.output
    page = htmllib.unescape(out.read_text(encoding="utf-8"))
    assert all(note in page for note in _printed(db, "cmm-api"))


def test_the_terminal_and_the_artifact_say_the_same(db):
    for run_id in RUNS:
        notes = _printed(db, run_id)
        done = CliRunner().invoke(app, ["report", "--db", str(db), "--run-id", run_id],
                                  env={"COLUMNS": "200"})
        text = " ".join(done.output.split())
        assert all(" ".join(n.split()) in text for n in notes), run_id
        store = open_store(db, read_only=True)
        md, _ = markdown.run_markdown(store, summary.build(store, run_id))
        shown = [line.strip().removeprefix("- ") for line in
                 md.split("## Notes", 1)[1].split("\n## ", 1)[0].splitlines() if line.strip()]
        assert [line.replace("\\|", "|") for line in shown] == notes, run_id
