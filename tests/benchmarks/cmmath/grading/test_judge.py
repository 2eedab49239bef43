"""The GradeGPT-style judge's prompt and verdict parser, the authors' judgment sample, and the
audit of a grader against GPT-4's verdicts (judge_agreement)."""
import json

import pytest

from mathprobe.benchmarks import cmmath
from mathprobe.benchmarks.cmmath import audit as judge
from mathprobe.benchmarks.cmmath.grading import judge_prompt_authors
from mathprobe.contract import Judge
from mathprobe.errors import DataError, MathprobeError
from mathprobe.runs import judging
from mathprobe.store import Store
from tests.conftest import shared_data_dir


def sample_path(data_dir):
    return data_dir / "cmmath" / "gradegpt_judgments_sample.jsonl"


def gradegpt(question: str, reference: str, response: str | None) -> tuple[str | None, str]:
    texts = cmmath.published(shared_data_dir())
    return cmmath.judge_prompt(question, reference, response, "gradegpt", texts)


# -- prompt -------------------------------------------------------------------------------------

def test_default_judge_prompt_is_the_authors_gpt4_prompt():
    """Their prompt/judge_prompt.py: the Cross-Lingual Judge-of-Chain instructions and three
    worked examples, then the filled template, in one user message, no system prompt."""
    system, user = cmmath.judge_prompt("求$$x$$．", "$$2$$", "所以x=2。")
    assert system is None
    assert user == judge_prompt_authors.JUDGE_PROMPT + (
        "\nQuestion: 求$$x$$．\nReference Answer: $$2$$\n"
        "Model Response: 所以x=2。\nJudgment Result: \n")
    head = judge_prompt_authors.JUDGE_PROMPT
    assert head.startswith("\nYou are an answer evaluation assistant. Based on the following")
    assert "(For example: If the reference answer is: A\nC\n, and the model response is: " \
           "C\n, the answer consistency is: No)" in head       # their "\\n" escapes: newlines
    assert head.count("Chinese Problem: ") == 3 and head.count("Judge Result: The relevant "
                                                                 "paragraph in the Model Response") == 3
    assert "$$\\bigtriangleup ABC$$" in head and "AD \\* AC^2" in head and "let’s" in head
    assert head.endswith("The consistency of the answers is: No.\n")


def test_gpt4s_judgments_follow_that_prompts_format(data_dir):
    """GPT-4's judgments in the authors' GradeGPT data are written in the format the prompt's
    examples show (392 of the 426 sample judgments open with it; all end with the verdict)."""
    records = judge.read_judgment_sample(sample_path(data_dir))
    opening = [r for r in records if r["judgment"].startswith(
        "The relevant paragraph in the Model Response that provides the answer is")]
    assert len(opening) == 392
    assert all("The consistency of the answers is: " in r["judgment"] for r in records)


def test_gradegpt_format(data_dir):
    system, user = gradegpt("求$$x$$．", "$$2$$", "所以x=2。")
    assert system == "You are a helpful assistant."
    assert user == ("以下是某道题目, 答案和一条模型响应。请确定模型响应中是否给出了正确的参考答案\n"
                    "Question: 求$$x$$．\nReference Answer: $$2$$\nModel Response: 所以x=2。\n"
                    "Judgment Result: \n")


def test_gradegpt_format_is_the_authors_instruction_format(data_dir):
    """Filled in with a record's parts, the gradegpt format is exactly the authors' system and
    user turns."""
    records = judge.read_judgment_sample(sample_path(data_dir))
    lines = sample_path(data_dir).read_text(encoding="utf-8").splitlines()
    for rec in records:
        messages = json.loads(lines[rec["index"] - 1])["messages"]
        assert gradegpt(rec["question"], rec["reference"], rec["response"]) == (
            messages[0]["content"], messages[1]["content"])


def test_judge_options():
    base = cmmath.benchmark.judge
    assert (base.prompt_format, base.verdict) == ("gpt4", "strict")
    j = judging.judge_of(cmmath.benchmark, "triton:gradegpt-7b#prompt=gradegpt,verdict=official")
    assert (j.prompt_format, j.verdict) == ("gradegpt", "official")
    assert judging.backend_spec("triton:gradegpt-7b#prompt=gradegpt") == "triton:gradegpt-7b"
    assert judging.judge_of(cmmath.benchmark, "openai:gpt-4o").prompt_format == "gpt4"
    assert j.parse("quoting 'Yes' then: The consistency of the answers is: No.") is True
    assert base.parse("quoting 'Yes' then: The consistency of the answers is: No.") is False
    for bad, message in [("openai:x#prompt=chatgpt", "prompt='chatgpt'"),
                         ("openai:x#temperature=1", "unknown CMMaTH judge option"),
                         ("openai:x#gradegpt", "key=value")]:
        with pytest.raises(MathprobeError, match=message):
            judging.judge_of(cmmath.benchmark, bad)


def test_a_judge_without_options_refuses_them():
    class Plain(Judge):
        rules_grader, params = "rules", {}

        def prompt(self, item, response):
            return None, ""

        def parse(self, text):
            return None

    plain = Plain()
    assert plain.configured({}) is plain
    with pytest.raises(MathprobeError, match="takes no options"):
        plain.configured({"prompt": "x"})


# -- verdicts -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("... The consistency of the answers is: <Yes>.", True),
    ("... The consistency of the answers is: <No>.", False),
    ("The output given in the model response is 95. The consistency of the answers is: No.", False),
    ("The consistency of the answers is: Yes.\nKeep in mind, the steps are wrong.", True),
    ("The consistency of the answers is: **Yes**", True),
    ("the consistency of the answer is <no>", False),
    ("First thought: The consistency of the answers is: <Yes>. On reflection, "
     "The consistency of the answers is: <No>.", False),            # the final verdict counts
    ("After checking: <No> ... final: <Yes>", True),
    ("Yes", True), ("no.", False), (" <Yes> ", True),
    ("The answers look the same to me.", None),
    ("Yes and no.", None),
    ("", None), (None, None),
])
def test_parse_verdict(text, expected):
    assert cmmath.parse_verdict(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("... The consistency of the answers is: Yes.", True),
    ("... The consistency of the answers is: <No>.", False),
    ("The reference answer is Yes-or-no question; the consistency of the answers is: No.", True),
    ("yes", False), ("", False), (None, False),
])
def test_official_verdict_rule(text, expected):
    """The authors' rule: "Yes" anywhere in the text, case-sensitive; never undecided."""
    assert cmmath.parse_verdict_official(text) is expected


# -- the sample ---------------------------------------------------------------------------------

def test_read_the_sample(data_dir):
    records = judge.read_judgment_sample(sample_path(data_dir))
    assert len(records) == 426
    assert sum(r["gpt4_verdict"] for r in records) == 14
    first = records[0]
    assert first["index"] == 1 and first["gpt4_verdict"] is False
    assert first["reference"] == "$$\\dfrac{\\sqrt{3}}{2}-\\dfrac{ \\pi }{6}$$"
    assert first["question"].startswith("【例2】")
    assert first["response"].endswith("答案：阴影部分的面积是0。")
    assert {"index", "question", "reference", "response", "gpt4_verdict"} <= set(first)
    # GPT-4's verdicts read by our strict rule are what the authors' rule reads too
    assert all(cmmath.parse_verdict_official(r["judgment"]) is r["gpt4_verdict"] for r in records)


def chat(user: str, assistant: str) -> str:
    return json.dumps({"type": "chatml", "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": user}, {"role": "assistant", "content": assistant}]},
        ensure_ascii=False)


GOOD_USER = gradegpt("求x．", "$$2$$", "所以x=2。")[1]


@pytest.mark.parametrize("line, field, message", [
    ("{not json", None, "not valid JSON"),
    ("[1, 2]", None, "JSON object"),
    (json.dumps({"messages": "hi"}), "messages", "list of chat messages"),
    (json.dumps({"messages": [{"role": "user", "content": GOOD_USER}]}), "messages",
     "no assistant message"),
    (json.dumps({"messages": [{"role": "user"}]}), "messages[0]", "role"),
    (chat("Question: x\nModel Response: y\nJudgment Result:", "is: Yes."), "messages.user",
     "Reference Answer"),
    (chat(GOOD_USER, "I am not sure."), "messages.assistant", "no verdict"),
])
def test_malformed_sample_records(tmp_path, line, field, message):
    path = tmp_path / "sample.jsonl"
    path.write_text(chat(GOOD_USER, "The consistency of the answers is: Yes.") + "\n\n" + line + "\n",
                    encoding="utf-8")
    with pytest.raises(DataError, match=message) as exc:
        judge.read_judgment_sample(path)
    assert (exc.value.row, exc.value.field) == (3, field)


def test_missing_or_empty_sample(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        judge.read_judgment_sample(tmp_path / "none.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(DataError, match="no records"):
        judge.read_judgment_sample(tmp_path / "empty.jsonl")


# -- the audit ----------------------------------------------------------------------------------

def test_agreement_on_hand_made_verdicts(tmp_path, db):
    """Six records (GPT-4: Yes, Yes, No, No, No, No) against a grader's Yes, No, No, Yes, None,
    No: decided 5; tp 1, fn 1, tn 2, fp 1."""
    gpt4 = [True, True, False, False, False, False]
    lines = [chat(gradegpt(f"q{k}", "$$1$$", f"答案：{k}")[1],
                  f"The consistency of the answers is: {'Yes' if g else 'No'}.")
             for k, g in enumerate(gpt4)]
    path = tmp_path / "mini.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = Store(db)
    assert judge.load_judgment_sample(store, path) == 6
    mine = [True, False, False, True, None, False]
    judge.write_audit_verdicts(store, "a1", "fake", list(zip(range(1, 7), mine)))
    row = store.query_dicts("SELECT * FROM judge_agreement WHERE audit_id = 'a1'")[0]
    assert (row["n"], row["n_decided"]) == (6, 5)
    assert (row["tp"], row["fp"], row["tn"], row["fn"]) == (1, 1, 2, 1)
    assert row["undecided_share"] == pytest.approx(1 / 6)
    assert row["agreement"] == pytest.approx(3 / 5)
    assert row["precision_yes"] == pytest.approx(1 / 2)
    assert row["recall_yes"] == pytest.approx(1 / 2)
    assert row["balanced_accuracy"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    # a judge's raw replies: an unreadable reply is judge_failed (NULL)
    replies = [(1, "... is: <Yes>."), (2, "<Yes>"), (3, "garbled"), (4, None), (5, "<No>"),
               (6, "The consistency of the answers is: No.")]
    row = judge.audit_judge(store, "a1", "judge:fake", replies)
    assert (row["n_decided"], row["tp"], row["fp"], row["tn"], row["fn"]) == (4, 2, 0, 2, 0)
    assert row["agreement"] == 1.0 and row["balanced_accuracy"] == 1.0
    # writing again replaces, and another audit id is separate
    judge.write_audit_verdicts(store, "a1", "fake", [(1, True)])
    assert store.query("SELECT n FROM judge_agreement WHERE audit_id='a1' AND grader='fake'") == [(1,)]


def test_audit_needs_the_sample(db):
    with pytest.raises(MathprobeError, match="load the sample first"):
        judge.audit_rules(Store(db), "rules")


def test_rule_stage_audit_on_the_real_sample(data_dir, db):
    store = Store(db)
    row = judge.audit_rules(store, "rules-sample", sample_path(data_dir))
    assert row["grader"] == "rules" and row["n"] == 426
    tp, fp, tn, fn = row["tp"], row["fp"], row["tn"], row["fn"]
    assert tp + fp + tn + fn == row["n_decided"] <= row["n"]
    assert tp + fn <= 14 and tn + fp <= 412                # GPT-4: 14 Yes, 412 No
    assert row["undecided_share"] == pytest.approx((row["n"] - row["n_decided"]) / row["n"])
    assert row["agreement"] == pytest.approx((tp + tn) / row["n_decided"])
    assert row["precision_yes"] == pytest.approx(tp / (tp + fp))
    assert row["recall_yes"] == pytest.approx(tp / (tp + fn))
    assert row["balanced_accuracy"] == pytest.approx((tp / (tp + fn) + tn / (tn + fp)) / 2)
    undecided = store.query("SELECT count(*) FROM cmmath_audit_verdicts WHERE audit_id = "
                            "'rules-sample' AND verdict IS NULL")[0][0]
    assert undecided == row["n"] - row["n_decided"]
    # the rule stage only decides what it is sure of: a floor against regressions
    assert row["agreement"] >= 0.95 and row["undecided_share"] <= 0.4
