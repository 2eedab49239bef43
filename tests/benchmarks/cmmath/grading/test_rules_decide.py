"""What the rule stage decides beyond a plainly marked final answer (issue 13, item 5): answers
in wrappers, in parts, given to names, in words; "wrong" for a reference value the response
never writes; the parse cache; and the measurement on the sample's worked solutions."""
import math_verify
import pytest

from mathprobe.benchmarks import cmmath
from mathprobe.benchmarks.cmmath.grading import answer_values, mentioned_numbers, rule_agreement
from mathprobe.items import Item
from tests.benchmarks.cmmath.grading.test_rules import choice, free, verdict

POSITIVE = ("某校统计了成绩，则下列说法正确的是（   ）．\nA.平均分为$$80$$\nB.中位数为$$75$$\n"
            "C.众数为$$70$$\nD.极差为$$30$$\n")
NEGATIVE = POSITIVE.replace("说法正确的是", "说法错误的是")


def asking(question: str, gold: str) -> Item:
    return Item(benchmark="cmmath", item_id="q", question=question, gold=gold,
                choices=cmmath.option_letters(question), part="choice")


@pytest.mark.parametrize("response, gold, expected", [
    ("故选 $$\\text C$$．", "C", True),                   # \text, \mathrm wrappers
    ("故选：$$\\mathrm{AC}$$．", "A\nC", True),
    ("故答案选：$${B}$$．", "C", False),                   # 答案选：
    ("故选∶C．", "C", True),                               # U+2236 RATIO for the colon
    ("答案：\\textbf{(B)}", "B", True),
    ("故选：E．", "C", False),                             # a letter the question does not offer
])
def test_choice_wrappers(response, gold, expected):
    assert verdict(choice(gold), response) is expected


def test_options_judged_one_by_one():
    text = "A:平均分为80，故A正确；\nB:中位数为70，故B错误；\nC:众数为70，故C正确；\nD:极差为40，故D错误．"
    assert verdict(asking(POSITIVE, "A\nC"), text) is True
    assert verdict(asking(POSITIVE, "A"), text) is False
    # in a "which is wrong" question "D错误" may mean "D is not the answer": not read
    assert verdict(asking(NEGATIVE, "B\nD"), text) is None
    # every option must be judged
    assert verdict(asking(POSITIVE, "A\nC"), text.rsplit("\n", 1)[0]) is None


@pytest.mark.parametrize("gold, response, expected", [
    ("$$498$$万元", "故应至少投入4980000元该材料费用", True),   # 万 written out
    ("$$498$$万元", "故应至少投入4980元该材料费用", False),
    ("$$498$$万元", "故应至少投入498万元.", True),
    ("$$11.42\\%$$", "则占比预计为0.1142", True),
    ("$$6$$", "Therefore the area is six.", None),              # words are a mention
    ("$$25$$", "So the answer is twenty-five.", None),
    ("$$6$$", "首先，我们需要找到圆心O的位置。然后计算半径", False),   # no answer, no 6 anywhere
    ("$$1$$\n$$3$$\n$$-2$$", "答案：1，3", False),               # a blank left out
    ("$$\\frac{1}{2}$$（答案不唯一）", "所以取x=0.3即可", None),   # another answer may do
    ("$$8\\pi $$", "先求底面积，再乘高，体积大约在25.13附近", None),   # 8π as a decimal
    ("$$8\\pi $$", "所以体积为$$\\pi r^2 h$$的一半", None),          # π written: may be 8π
    ("$$8\\pi $$", "所以体积为24", False),
    ("$$\\frac{\\pi}{4}$$", "所以∠A=45°", True),               # an angle in degrees
    ("$$\\frac{\\pi}{4}$$", "所以所求角为45度，即所求", None),   # degrees written: not absent
    ("$$2\\sqrt{3}$$", "EF的长大约在3.46附近", None),
    ("$$2\\sqrt{3}$$", "所以EF=4", False),
])
def test_a_value_never_written(gold, response, expected):
    assert verdict(free(gold), response) is expected


def test_mentioned_numbers():
    got = mentioned_numbers.mentioned_numbers(
        "共\\frac{{1}}{{4}}，3/5，11.42%，一百二十，two hundred")
    assert {0.25, 0.6, 11.42, 120, 200.0} <= got


PARTS_GOLD = "(1)$$202$$．\n(2)$$\\frac{3}{5}$$．"


@pytest.mark.parametrize("response, expected", [
    ("【分析】(1)先求中位数；(2)列举．\n【详解】(1) ……则中位数为$$202$$．\n(2) ……所以概率为$$\\frac{3}{5}$$．",
     True),
    ("(1) 中位数为202。\n(2) 由(1)知……所以概率$$P=\\frac{6}{10}=\\frac{3}{5}$$．", True),
    ("(1) 中位数为202。\n(2) 所以概率为$$\\frac{2}{5}$$．", False),     # 3/5 never written
    ("(1) 中位数为200。\n(2) 所以概率为$$\\frac{3}{5}$$，中位数202．", None),
    ("中位数为202，概率为3/5", True),               # no parts: the last line states both
])
def test_a_reference_in_parts(response, expected):
    assert verdict(free(PARTS_GOLD), response) is expected


@pytest.mark.parametrize("gold, response, expected", [
    ("$$a=0.005$$，$$b=0.2$$", "由题意得$$2a+0.19=0.2$$，\n解得$$a=0.005$$，\n又∴$$b=0.2$$．", True),
    ("$$\\hat{a}\\approx 0.1$$，$$\\hat{b}\\approx 5.5$$",
     "$$\\hat{a}\\approx 0.1$$，\n$$\\hat{b}=7.5-0.1\\times 20.5=5.45\\approx 5.5$$．", True),
    ("平均数为$$54$$；中位数为$$55$$",
     "平均数为$$54$$，设中位数为$$x$$，则$$0.35+(x-50)\\times 0.03=0.5$$，解得：$$x=55$$．", True),
    ("$$a=0.005$$，$$b=0.2$$", "解得$$a=0.005$$，$$b=0.3$$．\n所以b=0.2不成立", None),
    ("$$9$$\n$$2\\sqrt{13}$$", "∴$$CD=9$$；\n又$$AB^2=52$$，∴$$AB=2\\sqrt{13}$$．", True),
])
def test_values_given_to_names(gold, response, expected):
    assert verdict(free(gold), response) is expected


@pytest.mark.parametrize("gold, response, expected", [
    ("模型②的拟合效果较好．", "因为R2>R1，\n所以模型②的拟合效果较好．", True),
    ("有$$95\\%$$的把握认为成绩与性别有关", "K²≈2.2<3.841，\n所以没有$$95\\%$$的把握认为成绩与性别有关．",
     None),                                        # the statement, negated
    ("能", "所以不能", None),                      # too short to look for
])
def test_a_statement_in_words(gold, response, expected):
    assert verdict(free(gold), response) is expected


def test_a_condition_is_no_answer():
    assert verdict(free("$$-2$$"), "当$$x=\\frac{1}{4}$$时，$$S={{\\log }_{2}}\\frac{1}{4}=-2$$，") is True
    assert verdict(free("$$18$$"), "解：设人数为$$x$$，则$$\\frac{0.4}{20}=\\frac{0.36}{x}$$，解得$$x=18$$．") is True


def test_each_text_is_parsed_once(monkeypatch):
    """An answer is parsed once, not once per option or per re-grading; the same pair of
    values is compared once."""
    for cached in (answer_values.make_value, answer_values._parse_math, answer_values._verify):
        cached.cache_clear()
    calls = {"parse": 0, "verify": 0}
    parse, verify = math_verify.parse, math_verify.verify

    def counted(name, fn):
        def wrapper(*a, **k):
            calls[name] += 1
            return fn(*a, **k)
        return wrapper

    monkeypatch.setattr(math_verify, "parse", counted("parse", parse))
    monkeypatch.setattr(math_verify, "verify", counted("verify", verify))
    item = choice("B")
    assert verdict(item, "所以，所求的值为0.5。") is True
    first = dict(calls)
    assert first["parse"] == 5           # the answer and the four options, each once
    for _ in range(3):
        assert verdict(item, "所以，所求的值为0.5。") is True
    assert calls == first


# -- the measurement on the sample's worked solutions -------------------------------------------

def test_measurement_cases(data_dir):
    items = cmmath.load(data_dir).items
    cases = rule_agreement.cases(items)
    with_solution = [i for i in items if (i.payload.get("analysis") or "").strip()]
    own = [c for c in cases if c.kind == "own"]
    assert len(own) == len(with_solution) == 971
    held = {c.item.item_id for c in own if c.split == "heldout"}
    assert 0.3 < len(held) / len(own) < 0.5
    assert rule_agreement.split_of("00014") == rule_agreement.split_of("00014")   # fixed by the id
    by_id = {i.item_id: i for i in items}
    for c in cases:
        if c.kind == "other":
            other = by_id[c.source]
            assert c.source != c.item.item_id and c.split == rule_agreement.split_of(other.item_id)
            assert rule_agreement.reference_kind(other) == rule_agreement.reference_kind(c.item)
            assert c.response == other.payload["analysis"] and c.expected is False
    tallies = rule_agreement.measure(lambda item, text: True if item.item_id < "1" else None,
                                     [c for c in cases if c.kind == "own"])
    for split in ("tuning", "heldout"):
        t = tallies[(split, "all")]
        assert t.agreed == t.decided and t.decided < t.n


def test_rules_on_tuning_solutions(data_dir):
    """A floor against regressions, on part of the tuning split (the held-out figures are
    perf/cmmath_rules.py's): the rules decide most solutions and almost never wrongly."""
    cases = [c for c in rule_agreement.cases(cmmath.load(data_dir).items)
             if c.split == "tuning"][:400]
    t = rule_agreement.measure(lambda item, text: cmmath.grade("rules", item, text)[1], cases)
    total = t[("tuning", "all")]
    assert total.decided_share >= 0.8 and total.agreement >= 0.99


def test_grading_runs_parses_each_distinct_expression_once(tmp_path, data_dir, monkeypatch):
    """Grading a run whose answers repeat (the same value for many questions, the same options
    in many answers), then a second run with the same answers: math-verify's parser (the real
    one, counted at its entry point) reads each distinct normalised expression once in all."""
    from collections import Counter

    from mathprobe import registry
    from mathprobe.items import Completion
    from mathprobe.runs import grade_run, prepare
    from mathprobe.store import RunSpec, Store

    for cached in (answer_values.make_value, answer_values._parse_math, answer_values._verify):
        cached.cache_clear()
    parsed: Counter[str] = Counter()
    real_parse = math_verify.parse

    def counted(text, *a, **k):
        parsed[text] += 1
        return real_parse(text, *a, **k)

    monkeypatch.setattr(math_verify, "parse", counted)
    bench = registry.get("cmmath")
    store = Store(tmp_path / "runs.duckdb")
    dataset = prepare(store, bench, data_dir)
    free_form = [it for it in dataset.items if it.part != "choice"
                 and answer_values.make_value(it.gold.strip()).parsed][:30]
    choices = [it for it in dataset.items if it.part == "choice" and it.choices][:10]
    answers = ["所以答案为$$\\frac{1}{2}$$。", "答案：0.5", "答案：12", "故答案为$$12$$．"]
    parsed.clear()
    for run_id in ("first", "second"):
        store.start_run(RunSpec(run_id, "cmmath", "m", "m", bench.default_setting, {}),
                        len(free_form) + len(choices))
        store.append_responses(run_id, [(it.item_id, "h", Completion(text=answers[n % 4]))
                                        for n, it in enumerate(free_form + choices)])
        grade_run(store, bench, dataset, run_id)
        if run_id == "first":
            first = sum(parsed.values())
    assert parsed and max(parsed.values()) == 1, parsed.most_common(3)
    assert sum(parsed.values()) == first          # the second run parsed nothing new
    # fewer parses than answers graded: a repeated answer is never parsed again
    assert first < len(free_form) + 2 * len(choices)
    assert store.query("SELECT count(*) FROM verdicts WHERE run_id = 'second'")[0][0] > 0
    store.close()


# -- issue 28: choice answers that decline, list several options, or name none -------------------

WORDS = ("甲、乙两人的成绩如图，则下面叙述一定不正确的是（   ）．\n\nA.甲的物理成绩领先年级平均分最多\n"
         "B.甲有两个科目的成绩低于年级平均分\nC.甲的成绩从高到低的前三个科目依次是地理、化学、历史\n"
         "D.对甲而言，物理、化学、地理是比较理想的一种选科结果\n")
TRUE_ONES = WORDS.replace("一定不正确的是", "正确的是")


@pytest.mark.parametrize("response", [
    "……所有选项都有可能是正确的，因此无法确定哪个选项一定不正确。\n\n答案: 无法确定。",
    "综上，根据图表我们无法得出结论，可能需要更多信息。",
    "所以最终的答案是: 无法确定。 <STEP7>",
    "但是根据我们的分析，所有选项都不正确。\n因此，没有一个选项是正确的。 <STEP9>",
    "这个结果并不在选项中，可能题目有误。",
])
def test_a_choice_answer_that_declines_is_wrong(response):
    """The authors' judge: no particular option specified is "No" (the free-form path already
    said so of "无法求解")."""
    assert verdict(asking(WORDS, "C"), response) is False


def test_all_options_at_once():
    """"所有选项均正确" picks every option in a question asking for the true ones, none in one
    asking for the false one."""
    said = "逐一分析后可知：\n综上所述，所有选项均正确。"
    assert verdict(asking(WORDS, "C"), said) is False
    assert verdict(asking(TRUE_ONES, "A\nB\nC\nD"), said) is True
    assert verdict(asking(TRUE_ONES, "A\nB"), said) is False


@pytest.mark.parametrize("response, gold, expected", [
    ("……\n\n综上所述，正确的结论是A、B和C。", "A\nB\nC", True),
    ("……\n\n综上所述，正确的结论是A、B和C。", "B\nD", False),
    ("……\n所以最终的答案为:\nA.人均GDP和女性平均受教育年限正相关。 <STEP5>\n"
     "B.女性平均受教育年限和总和生育率负相关。 <STEP6>", "A\nB", True),
    ("……\n所以最终的答案为:\nA.人均GDP和女性平均受教育年限正相关。\n"
     "B.女性平均受教育年限和总和生育率负相关。", "A", False),
    ("综上所述，正确的选项是A、B和D。", "B\nD", False),
])
def test_several_options_in_the_final_answer(response, gold, expected):
    assert verdict(asking(TRUE_ONES, gold), response) is expected


def test_options_judged_in_a_which_is_false_question():
    """In "which is false" questions "D正确" may mean "D is true" or "D is the choice": the one
    option judged unlike the others is chosen either way; two against two is read both ways:
    wrong when neither reading is the reference, else undecided."""
    text = "A:…，故A正确；\nB:…，故B正确；\nC:…，故C错误；\nD:…，故D正确．"
    assert verdict(asking(NEGATIVE, "C"), text) is True
    assert verdict(asking(NEGATIVE, "D"), text) is False
    flipped = text.replace("C错误", "C正确").replace("D正确", "D错误")
    assert verdict(asking(NEGATIVE, "D"), flipped) is True
    two_two = text.replace("B正确", "B错误")
    assert verdict(asking(NEGATIVE, "C"), two_two) is False      # chose A, D or B, C: not C
    assert verdict(asking(NEGATIVE, "B\nC"), two_two) is None


@pytest.mark.parametrize("response, expected", [
    # another problem's solution: no option named in any way, the right one's words never used
    ("设人数为x，则0.4/20=0.36/x，解得x=18．\n故答案为：18．", False),
    # the right option's words, without its letter: may be its choice
    ("由图可知，甲的成绩从高到低的前三个科目依次是地理、化学、历史，这一定不对。", None),
    # a letter named as an option
    ("我认为C选项的说法不对。", None),
    ("所以应该是C。", None),
])
def test_a_response_that_never_names_the_right_option(response, expected):
    assert verdict(asking(WORDS, "C"), response) is expected


# -- issue 28: a leading word before the final value; a response cut off in a loop --------------

@pytest.mark.parametrize("gold, response, expected", [
    ("$$(-1,2)$$", "……\n答案：解集$$(-1,2)$$", True),
    ("$$(-1,2)$$", "……\n答案：解集$$(-1,3)$$", False),
    ("$$x>3$$", "答案 x>3", True),
    ("$$\\frac{3}{5}$$", "所以概率为9/15=3/5。\n\n答案是：3/5。", True),
])
def test_words_before_the_final_value(gold, response, expected):
    assert verdict(free(gold), response) is expected


def test_a_response_cut_off_in_a_loop():
    loop = "首先，" + "$$AB=DC$$\n\n" * 60
    assert verdict(free("20°"), loop) is False
    assert verdict(free("$$7$$"), "我们看第7行，" * 80) is None      # the loop writes the value
    assert verdict(free("$$8\\sqrt{2}$$"), "BE = " + "√(4-E + 144) = " * 40) is None


def test_values_of_a_part_stated_in_turn():
    """A part with several values, stated one after another, the last statement stating one
    of them; a distribution table in the reference is looked for number by number."""
    gold = "(1)$$24$$\n(2)平均数为$$54$$；中位数为$$55$$"
    text = ("(1) 人数为$$40\\times 0.6=24$$．\n(2) 平均数为$$54$$，设中位数为$$x$$，则$$0.35+(x-50)"
            "\\times 0.03=0.5$$，解得：$$x=55$$．")
    assert verdict(free(gold), text) is True
    assert verdict(free(gold), text.replace("x=55", "x=56")) is None
    table = ("(1)$$\\frac{1}{3}$$．\n(2)$$X$$的分布列为：\n$#| <br>$$X$$| <br>$$0$$| <br>$$1$$|\n"
             "| - | - | - |\n| <br>$$P$$| <br>$$\\frac{2}{3}$$| <br>$$\\frac{1}{3}$$|\n#$\n$$EX=\\frac{1}{3}$$．")
    said = ("(1) 概率为$$\\frac{1}{3}$$．\n(2) P(X=0)=\\frac{2}{3}，P(X=1)=\\frac{1}{3}，\n"
            "所以$$EX=0\\times \\frac{2}{3}+1\\times \\frac{1}{3}=\\frac{1}{3}$$．")
    assert verdict(free(table), said) is True
    assert verdict(free(table), said.replace("\\frac{2}{3}", "\\frac{3}{4}")) is False


@pytest.mark.parametrize("gold, response, expected", [
    ("$$-3$$", "……\n故答案为：①②④．", False),             # statement numbers for a number
    ("②③④", "……\n所以答案为68．", False),                 # a number for statement numbers
    ("$$12$$", "……\n答案：射线OP是角AOB的平分线。", False),  # a marked answer with no number
    ("$$12$$", "……\n答案：十二。", None),                  # a number in words: not wrong
    ("$$1$$\n$$3$$\n$$-2$$", "……\n∴$$CG=3\\sqrt{2}+3$$．", False),   # concludes none of them
    ("$$-0.5$$\n$$5$$\n$$8$$", "k=-0.5，b=5……\n∴解析式为$$y=\\frac{8}{x}$$．", None),  # not a number
])
def test_final_answers_that_cannot_be_the_reference(gold, response, expected):
    assert verdict(free(gold), response) is expected


def test_judged_records_in_the_authors_format(tmp_path):
    """The measurement reads responses with the authors' judge's verdicts (their result
    format) and splits them by problem id like the rest; a bad record names its row."""
    import json

    from mathprobe.errors import DataError

    rows = [{"problem_id": "s_1", "question": QUESTION_DEMO, "answer": "C\n",
             "model_response": "所以最终的答案是C.", "output_correct": "Yes"},
            {"problem_id": "s_2", "question": "求$$x$$．", "answer": "$$2$$\n",
             "model_response": "答案: 无法确定。", "output_correct": "No"}]
    path = tmp_path / "eval_result.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    cases = rule_agreement.judged_cases(rule_agreement.authors_records(path), "authors")
    assert [(c.answer_type, c.expected, c.split) for c in cases] == [
        ("choice", True, rule_agreement.split_of("s_1")),
        ("free_form", False, rule_agreement.split_of("s_2"))]
    outcomes = rule_agreement.grade_all(lambda item, text: cmmath.grade("rules", item, text)[1],
                                        cases)
    assert [o.agrees for o in outcomes] == [True, True]
    rows[1]["output_correct"] = "maybe"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DataError, match="row 2.*output_correct"):
        rule_agreement.authors_records(path)


QUESTION_DEMO = "则下列说法正确的是（   ）\nA.$$1$$\nB.$$2$$\nC.$$3$$\nD.$$4$$\n"
