"""WE-MATH's judged extractor (VLMEvalKit's protocol) beside the official one: a run whose model
(the loopback fake server) answers some questions in the template and some in words only; the
judge (the same server) is asked only about the answers the authors' regex finds no letter in,
with VLMEvalKit's prompt; `official` stays the default, `cascade:<judge>` grades everything; a
re-judge and a second run with the same answers ask the judge nothing (the content cache);
`compare` shows both graders' figures and their agreement."""
from __future__ import annotations

import hashlib
import json
import re

import pytest
from typer.testing import CliRunner

from mathprobe.benchmarks import wemath
from mathprobe.benchmarks.wemath.grading import judge as wemath_judge
from mathprobe.cli.main import app
from mathprobe.flows.common import call_flow
from mathprobe.flows.eval import eval_flow
from mathprobe.store import open_store

pytestmark = pytest.mark.usefixtures("prefect_harness")
JUDGE = "openai:fake-judge"
MATCHING = "You are an AI assistant who will help me to match an answer"
LIMIT = 45


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


class Replies:
    """The model answers a third of the questions in the template ("<Answer>: B"), the rest in
    words that name an option's text ("so it is 60°") or nothing; the judge maps a response to
    the option whose text it contains ("Z" when none does), and fails to give a letter to
    responses that say "no idea"."""

    def __init__(self, items):
        self.by_question = {it.payload["question"]: it for it in items}

    def __call__(self, payload: dict, prompt: str) -> str:
        if MATCHING in prompt:
            return self.judge(prompt)
        item = next(it for q, it in self.by_question.items() if q in prompt)
        options = wemath_judge.option_texts(item.payload["option"])
        k = _h(item.item_id) % 6
        if k in (0, 1):
            return f"<Thought process>: short. <Answer>: {item.gold}"
        if k == 2:
            return "<Thought process>: I am not sure. no idea at all."
        letter = item.gold if k == 3 else next(x for x in options if x != item.gold)
        return f"Looking at the figure, the value must be {options[letter]} in the end."

    @staticmethod
    def judge(prompt: str) -> str:
        question = prompt.rsplit("Question: <start>\n", 1)[1]
        options = dict(re.findall(r"^([A-H])\. (.*)$", question.split("<end>")[0], re.M))
        answer = prompt.rsplit("Answer: <start>\n", 1)[1].split("\n<end>")[0]
        if "no idea" in answer:
            return "I really cannot tell which option this is."
        hits = [k for k, v in options.items() if v and v in answer]
        return max(hits, key=lambda k: len(options[k])) if hits else "Z"


def judge_requests(api) -> list[dict]:
    return [r for r in api.requests if MATCHING in r["prompt"]]


def test_judge_only_where_the_regex_finds_no_letter(fake_openai, data_dir, db):
    api = fake_openai
    items = wemath.load(data_dir).items
    api.reply = Replies(items)
    # the run ends incomplete (some judge replies name no option): its report all the same
    report = call_flow(eval_flow, benchmark="wemath", model="openai:fake-model", run_id="wm",
                       db=str(db), data_dir=str(data_dir), judge=JUDGE, limit=LIMIT,
                       concurrency=16)
    store = open_store(db)
    official = {iid: (ext, ok) for iid, ext, ok in store.query(
        "SELECT item_id, extracted, correct FROM verdicts WHERE run_id = 'wm' "
        "AND grader = 'official'")}
    no_letter = {iid for iid, (ext, _) in official.items() if ext is None}
    assert 0 < len(no_letter) < len(official)
    # the judge was asked exactly about those, with VLMEvalKit's prompt
    asked = judge_requests(api)
    assert len(asked) == len(no_letter)
    by_id = wemath.load(data_dir).by_id()
    texts = dict(store.query("SELECT item_id, response FROM current_responses WHERE run_id = 'wm'"))
    prompts = {r["prompt"] for r in asked}
    for iid in no_letter:
        item = by_id[iid]
        assert wemath_judge.judge_prompt(item.payload["question"],
                                         wemath_judge.option_texts(item.payload["option"]),
                                         texts[iid]) in prompts
    assert all(r["body"].get("temperature") == 0 and not any(
        m["role"] == "system" for m in r["body"]["messages"]) for r in asked)
    # official is untouched and stays the report's grader; the cascade grades every answer
    assert report["grader"] == "official"
    cascade = dict(store.query(f"SELECT item_id, correct FROM verdicts WHERE run_id = 'wm' "
                               f"AND grader = 'cascade:{JUDGE}'"))
    failed = {iid for iid in no_letter if "no idea" in texts[iid]}
    assert failed and set(cascade) == set(official) - failed      # judge_failed: no verdict
    for iid, (ext, ok) in official.items():
        if ext is not None:
            assert cascade[iid] == ok
    judged = dict(store.query(f"SELECT item_id, extracted FROM verdicts WHERE run_id = 'wm' "
                              f"AND grader = 'judge:{JUDGE}'"))
    assert set(judged) == no_letter - failed
    for iid, letter in judged.items():           # right where the words name the right option
        options = wemath_judge.option_texts(by_id[iid].payload["option"])
        named = [k for k, v in options.items() if v in texts[iid]]
        assert letter in named if named else letter == "Z"
        assert cascade[iid] == (letter == by_id[iid].gold)
    assert report["judges"][0]["n_judge_failed"] == len(failed)

    # the second grading asks nothing: the same run judged again ...
    before = len(judge_requests(api))
    out = CliRunner().invoke(app, ["judge", "wm", "--judge", JUDGE, "--db", str(db),
                                   "--data-dir", str(data_dir), "--json"])
    assert out.exit_code == 3, out.output          # judge_failed answers remain: incomplete
    result = json.loads(out.stdout)["judges"][0]
    assert result["asked"] == 0 and len(judge_requests(api)) == before
    # ... and a second run with the same answers: its judge calls come from the cache
    call_flow(eval_flow, benchmark="wemath", model="openai:fake-model", run_id="wm2", db=str(db),
              data_dir=str(data_dir), judge=JUDGE, limit=LIMIT, concurrency=16)
    new = judge_requests(api)[before:]
    assert all("no idea" in r["prompt"] for r in new) and len(new) == len(failed)
    (cached,), = store.query(f"SELECT count(*) FROM current_responses WHERE run_id = "
                             f"'wm2@judge:{JUDGE}' AND status = 'ok' AND attempts = 0")
    assert cached == len(judged)

    # compare shows both graders' figures and their agreement
    out = CliRunner().invoke(app, ["compare", "wm", "--db", str(db), "--json",
                                   "--resamples", "200"])
    assert out.exit_code == 0, out.output
    shown = {g["grader"]: g for g in json.loads(out.stdout)["graders"] if g["run_id"] == "wm"}
    assert set(shown) == {"official", f"cascade:{JUDGE}", f"judge:{JUDGE}"}
    assert shown["official"]["reported"] and shown["official"]["agreement"] is None
    a = shown[f"cascade:{JUDGE}"]["agreement"]
    assert a["n_both"] == len(cascade)
    changed = sum(1 for iid in cascade if cascade[iid] != official[iid][1])
    assert a["only_b_right"] + a["only_a_right"] == changed > 0
    assert a["agreement"] == pytest.approx(1 - changed / len(cascade))
    score = {g: shown[g]["figure"]["value"] for g in shown}
    assert score[f"cascade:{JUDGE}"] >= score["official"]     # the judge finds right answers
    text = CliRunner().invoke(app, ["compare", "wm", "--db", str(db), "--resamples", "200"],
                              env={"COLUMNS": "200"})
    assert "graders side by side" in text.output and f"cascade:{JUDGE}" in text.output


# -- the protocol's pieces ------------------------------------------------------------------------

def test_the_prompt_is_vlmevalkits_build_prompt_wemath(data_dir):
    item = next(it for it in wemath.load(data_dir).items if it.item_id == "2steps_1/2steps_1")
    system, user = wemath.benchmark.judge.prompt(item, "It is 300 and 400.")
    assert system is None
    assert user.startswith("You are an AI assistant who will help me to match an answer with "
                           "several options of a single-choice question. You are provided with "
                           "a question, several options, and an answer, and you need to find "
                           "which option is most similar to the answer. If the meaning of all "
                           "options are significantly different from the answer, output Z. Your "
                           "should output a single uppercase character in A, B, C, D, E, F, G (if "
                           "they are valid options), and Z. \nExample 1: \n")
    assert user.endswith(
        f"Example 3: \nQuestion: <start>\n{item.payload['question']}\nOptions: There are several "
        "options: \nA. 300, 400\nB. 400, 300\nC. 3000, 4000\nD. 4000, 3000\nE. No correct answer"
        "\n\n<end>\nAnswer: <start>\nIt is 300 and 400.\n<end>\nYour output: ")
    assert wemath.benchmark.judge.params == {"temperature": 0.0, "max_tokens": 2048}


OPTIONS = {"A": "300, 400", "B": "400, 300", "C": "3000, 4000", "D": "4000, 3000",
           "E": "No correct answer"}


@pytest.mark.parametrize("reply, letter", [
    ("A", "A"), ("Your output: C", "C"), ("(D)", "D"), ("Z", "Z"),
    ("The correct answer is **B**. Because the answer says so, in a long explanation.", "B"),
    ("Sorry, I can't help with images of people yet.", "Z"),          # a refusal: no option
    ("400, 300", "B"),                                                # an option's text
    ("A or B", None), ("I cannot tell which one.", None), (None, None),
    ("A is what I would pick here if I had to choose between these options", None),
])
def test_reading_the_judges_reply(reply, letter):
    """VLMEvalKit's can_infer: a lone letter among the last words, Z for none or a refusal, "the
    answer is X", or the one option whose text a short reply contains; else unreadable
    (judge_failed here, where VLMEvalKit would ask again and then draw at random)."""
    assert wemath_judge.infer_option(reply, OPTIONS) == letter


def test_what_the_judge_is_asked_about():
    j = wemath.benchmark.judge
    assert j.asks(None, False) and not j.asks("B", False) and not j.asks("B", True)
    assert not j.asks(None, None)          # no verdict at all: no answer to map
    assert j.cascade_is_default is False and j.rules_grader == "official"


def test_judge_values():
    from mathprobe.runs import judging

    assert judging.judge_options("openai:m#repeat=2,prompt=x") == {"prompt": "x"}
    assert judging.repeat_of("openai:m#repeat=3") == 3 and judging.repeat_of("openai:m") == 1
    assert judging.with_repeat("openai:m", 2) == "openai:m#repeat=2"
    assert judging.with_repeat("openai:m#prompt=x", 2) == "openai:m#prompt=x,repeat=2"
    assert judging.backend_spec(judging.with_repeat("openai:m", 2)) == "openai:m"
