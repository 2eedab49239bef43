"""The rule stage of CMMaTH grading: option sets, math equivalence, and what it leaves undecided."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from mathprobe.benchmarks import cmmath
from mathprobe.items import Item

QUESTION = "如图，下列说法正确的是（   ）\nA.$$1$$\nB.$$\\frac{1}{2}$$\nC.$$3$$\nD.$$4$$\n"


def choice(gold: str) -> Item:
    return Item(benchmark="cmmath", item_id="c", question=QUESTION, gold=gold,
                choices=cmmath.option_letters(QUESTION), part="choice")


def free(gold: str) -> Item:
    return Item(benchmark="cmmath", item_id="f", question="求图中阴影部分的面积．", gold=gold,
                part="free_form")


def verdict(item: Item, response: str | None):
    return cmmath.grade("rules", item, response)[1]


# -- choice questions: the set of letters must equal the reference set ------------------------------

@pytest.mark.parametrize("response, expected", [
    ("……所以面积为3。\n故选：C", True),
    ("答案：C", True),
    ("<STEP1> ... <STEP2> ...\n答案：C。", True),
    ("Step by step ... Answer: C", True),
    ("The answer is $\\boxed{C}$.", True),
    ("故选C．", True),
    ("答案：C. $$3$$", True),
    ("Answer: C\n\nWhy not the others: option A is too small, option B too.", True),
    ("答案：B", False),
    ("故选：A", False),
    ("Answer: (D)", False),
])
def test_single_answer_choice(response, expected):
    assert verdict(choice("C"), response) is expected


@pytest.mark.parametrize("response, expected", [
    ("故选：AC", True),
    ("答案：A、C", True),
    ("Answer: A, C", True),
    ("Answer: C and A", True),
    ("故选$${A}$$、$${C}$$．", True),
    ("答案：C", False),             # "C" against "A, C": a right option missing is wrong
    ("答案：A、C、D", False),        # an extra option is wrong
    ("故选：B", False),
])
def test_multiple_answer_choice_is_a_set(response, expected):
    assert verdict(choice("A\nC"), response) is expected


def test_extracted_letters_are_reported():
    assert cmmath.grade("rules", choice("A\nC"), "故选：CA") == ("AC", True)
    assert cmmath.grade("rules", choice("C"), "答案：A、C") == ("AC", False)


def test_segment_names_are_not_options():
    # "AB的长度" is a segment, not options A and B: no letters are read from it. The answer is
    # undecided while it writes the right option's value (3) somewhere ...
    assert cmmath.grade("rules", choice("C"), "答案：AB的长度为2，CD的长度为3") == (None, None)
    # ... and wrong when it names neither option C nor C's value: it cannot have chosen C
    assert cmmath.grade("rules", choice("C"), "答案：AB的长度为2") == (None, False)


def test_choice_answered_by_the_option_value():
    # no letter, but the value is option B's and no other option's
    assert verdict(choice("B"), "所以，所求的值为0.5。") is True
    assert verdict(choice("C"), "所以，所求的值为0.5。") is False


def test_choice_without_a_final_answer():
    # no letter and no value chosen: undecided while it may still mean the right option ...
    assert verdict(choice("C"), "首先我们观察图形中的3条边，然后计算各边的长度") is None
    assert verdict(choice("C"), "首先观察点C的位置，然后计算各边的长度") is None
    # ... wrong when it never names option C nor writes C's value (the judge: no answer, No)
    assert verdict(choice("C"), "首先我们观察图形，然后计算各边的长度") is False


# -- free-form: math equivalence ----------------------------------------------------------------

@pytest.mark.parametrize("gold, response", [
    ("$$\\frac{1}{2}$$", "答案：0.5"),
    ("$$0.5$$", "所以，所求概率为$$\\frac{1}{2}$$。"),
    ("$$3\\sqrt{3}$$", "答案：$$\\sqrt{27}$$"),
    ("$$2\\sqrt{3}$$", "所以，EF的长为2√3。"),
    ("$$\\frac{4\\pi }{3}-2\\sqrt{3}$$", "答案：$$-2\\sqrt{3}+\\frac{4}{3}\\pi$$"),
    ("$$9 \\pi $$", "所以圆的面积为9π。"),
    ("$$110{}^\\circ $$", "所以，$$\\angle ADC=110{}^\\circ$$。"),
    ("$$45$$度", "所以，∠P的度数是45度。"),
    ("8$$\\mathrm{cm}^{2}$$", "答案：$$\\Delta DEC$$的面积为8平方厘米。"),
    ("$$500{m}$$", "因此，答案为500米。"),
    ("$$[{2},{4}]$$", "Answer: $[2, 4]$"),
    ("$$(2,+\\infty)$$", "答案：$$(2,\\infty)$$"),
    ("$$\\left( -4,1 \\right)$$", "所以点P的坐标为(-4, 1)。"),
    ("$$\\frac{\\pi }{3}$$/ $$60^{\\circ}$$", "答案：60°"),           # alternative spellings
    ("$$\\frac{1}{4}$$或$$\\frac{3}{5}$$", "答案：3/5或1/4"),        # all solutions, any order
    ("$$94.5$$\n$$171$$", "答案：94.5，171"),                          # two blanks
    ("$$82\\%$$", "答案：0.82"),
    ("$$2\\colon 3$$", "答案：2:3"),
    ("$$y=24-3x$$", "所以，y = 24 - 3x。"),
    ("①②④", "所以正确的结论是②④①。"),
    ("6根号21", "答案：$$6\\sqrt{21}$$"),
    ("$$500{m}$$", "答案：500m"),                                      # a unit after a number
    ("$$3{cm}$$", "所以，BC的长为3 cm。"),
    ("$$4m$$", "所以长方形的周长是4m。"),                               # the same form
    ("$$3.75c{{m}^{2}}$$", "答案：3.75 cm²"),
    ("$$\\frac{4}{3}{c}{{{m}}^{3}}$$",                                  # value on the next line
     "∴$$V=\\frac{1}{3}\\times 1\\times 2\\times 2$$\n$$=\\frac{4}{3}{c}{{{m}}^{3}}$$"),
    ("$$6$$", "Therefore, the area of the triangle is 6 square units."),
    ("$$5，8$$", "所以x=5，y=8。"),                                      # values together
    ("$$7$$", "AB = AC + BC = 3 + 4 = 7\n所以AB = 7"),
])
def test_free_form_equivalent(gold, response):
    assert verdict(free(gold), response) is True


@pytest.mark.parametrize("gold, response", [
    ("$$\\frac{1}{2}$$", "答案：0.25"),
    ("$$1729$$", "最后，我们计算出和为95。因此，答案为95。"),
    ("$$\\dfrac{\\sqrt{3}}{2}-\\dfrac{ \\pi }{6}$$", "答案：阴影部分的面积是0。"),
    ("$$\\frac{1}{4}$$或$$\\frac{3}{5}$$", "答案：1/4"),             # a solution is missing
    ("$$94.5$$\n$$171$$", "答案：94.5，170"),
    ("①②④", "答案：①②③④"),
    ("$$6$$", "所以，EF = BD + 2。"),                                  # no number given
    ("$$8$$", "所以，AB的长度为CD。"),
    ("$$30{}^\\circ $$", "由于题目中没有给出角COB的度数，我们无法得出答案。"),   # says it cannot
    ("$$\\sqrt{3}$$", "……\n答案为$$\\underline{}$$。"),                         # left blank
    ("$$500{m}$$", "答案：400m"),
    ("$$4m$$", "答案：2m"),                 # neither 4 metres nor 4 times m
    ("$$4m$$", "所以长方形⑤的宽为m。"),
])
def test_free_form_wrong(gold, response):
    assert verdict(free(gold), response) is False


def test_no_response_is_wrong():
    assert cmmath.grade("rules", free("$$1$$"), None) == (None, False)
    assert cmmath.grade("rules", choice("A"), "   ") == (None, False)


@pytest.mark.parametrize("gold, response", [
    ("$$6$$", "答案：我认为大约是六"),                                   # a value it cannot read
    ("$$6$$", "所以，x = 2，AB的长为6。"),                               # two candidates disagree
    ("暂无", "答案：6"),                                                 # no reference
    ("垂线段最短", "答案：两点之间线段最短"),                             # text answers
    ("$$AF=CE$$", "答案：BE=DF"),                                        # geometric relations
    ("$$\\angle EFG=90{}^\\circ $$（答案不唯一）", "答案：EF⊥FG"),
    ("$$\\frac{1}{2}$$（答案不唯一）", "答案：1/3"),                      # another answer may do
    ("$$y=24-3x$$", "所以，3x + y = 24。"),                              # an equation, not a value
    ("$$\\frac{\\pi}{4}$$", "答案：60°"),                     # degrees vs radians, not equal
    ("$$6$$", "Therefore the area is six."),                           # words, not a value
    ("$$4m$$", "答案：4"),                  # "4m": 4 metres or 4 times m? "4" may be right
])
def test_undecided(gold, response):
    assert verdict(free(gold), response) is None


def test_graders_and_determinism():
    with pytest.raises(ValueError, match="unknown CMMaTH grader"):
        cmmath.grade("official", free("1"), "1")
    first = [cmmath.grade("rules", free("$$\\frac{1}{2}$$"), "答案：0.5") for _ in range(3)]
    assert first == [("0.5", True)] * 3


def test_grading_off_the_main_thread():
    # math-verify's timeouts need SIGALRM, which only the main thread may set: a Prefect worker
    # thread must grade all the same.
    cases = [(free("$$\\frac{1}{2}$$"), "答案：0.5"), (choice("A\nC"), "故选：AC"),
             (free("$$7$$"), "答案：8")]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda c: verdict(*c), cases))
    assert got == [True, True, False]
