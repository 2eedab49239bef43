"""ConceptMath: the official grader's quirks, the strict grader where it differs on purpose,
malformed data rows, response-file errors, the three prompt settings and the subset rule."""
import json
import math
from pathlib import Path

import pytest

from mathprobe.benchmarks import conceptmath
from mathprobe.benchmarks.conceptmath.grading.official import (
    answer_span,
    find_numbers,
    gold_items,
    is_close,
    normalise,
    official_correct,
)
from mathprobe.benchmarks.conceptmath.grading.strict import strict_correct
from mathprobe.errors import DataError
from mathprobe.items import Chat
from tests.benchmarks.conceptmath.test_views import make_conceptmath_dir, row

LEAF = "Calculate and Properties/Calculate/Decimals"


def official(gold, response, concept=LEAF):
    return official_correct(str(gold), response, concept)


# -- official: step 1, the answer span -------------------------------------------------------

def test_prefix_splitting_into_two_parts_keeps_the_rest_and_stops():
    # '答案是' occurs once: the span is what follows, and '所以' (later in the list) is not
    # applied, so both 12 and 5 stay candidates.
    assert answer_span("计算得 7，答案是 12，所以 5") == "12，所以 5"
    assert official(5, "计算得 7，答案是 12，所以 5")
    assert not official(7, "计算得 7，答案是 12，所以 5")


def test_prefix_occurring_several_times_keeps_the_last_part_and_goes_on():
    text = "the answer is 3. Hmm, the answer is 4. Answer: 9 because 8"
    # 'answer is' splits into 3 parts: keep the last (' 4. Answer: 9 because 8') and go on;
    # 'Answer: ' then splits that into two: keep '9 because 8' and stop.
    assert answer_span(text) == "9 because 8"
    assert official(8, text) and official(9, text)
    assert not official(3, text) and not official(4, text)


def test_no_prefix_keeps_the_whole_response():
    assert answer_span("  First 3, then 4.  ") == "First 3, then 4."
    assert official(3, "First 3, then 4.") and official(4, "First 3, then 4.")


# -- official: step 2, gold lists ------------------------------------------------------------

def test_gold_lists():
    assert gold_items("[1/4,1/3]") == ["1/4", "1/3"]
    assert gold_items("a，b") == ["a", "b"]
    assert gold_items("1_000") == ["1000"]
    assert official("[1/4,1/3]", "The answer is 1/3 and 1/4")
    assert not official("[1/4,1/3]", "The answer is 1/4")           # every gold item needed
    assert official("3，5", "The answer is 5 and then 3")


# -- official: step 3, numbers ---------------------------------------------------------------

def test_number_words_and_the_fourth_eleven_quirk():
    assert find_numbers("the answer is four") == ["4"]
    assert find_numbers("one hundred apples") == ["100"]
    assert find_numbers("the third one") == ["3", "1"]
    assert official(12, "The answer is twelve.")
    # The authors' pattern lacks a '|' between 'fourth' and 'eleven': neither is converted.
    assert find_numbers("the fourth") == [] and find_numbers("eleven") == []
    assert not official(4, "It is the fourth.")
    assert not official(11, "There are eleven.")
    assert find_numbers("Four") == []                                # case-sensitive


def test_numbers_fractions_mixed_decimals_pi_percent_and_spans():
    assert find_numbers("-3, +2.5, 1/2, 5 3/4, 2*pi, 3π, 7%") == [
        "-3", "+2.5", "1/2", "5 3/4", "2*pi", "3π", "7%"]
    assert find_numbers("12,345 and 6,7") == ["12345", "67"]        # commas between digits go
    assert find_numbers("so $2+3=5$ holds") == ["5$"]                # '=': the part after it
    # A span may hold none of x y z ( ) | $: here the text between two formulas is one.
    assert find_numbers("$x+1$ and $(2)$") == ["+1", "$ and $", "2"]
    assert official("5.75", "The answer is 5 3/4")                   # mixed number
    assert official("23/4", "The answer is 5 3/4")
    assert official("0.25", "The answer is 25%")                     # percent
    assert official("6.28", "The answer is 2π")                      # pi as 3.14
    assert official("288π", "The answer is 904.32")                  # 288*3.14
    assert official("1/8", "The answer is $\\frac{1}{8}$")           # a $...$ span, LaTeX
    assert not official("1/8", "The answer is \\frac{1}{8}")         # without $: 1 and 8


def test_no_numbers_and_no_response_are_wrong():
    assert not official(3, "I do not know.")
    assert not official(3, None)
    assert not official(3, "")


# -- official: steps 4-5, normalisation and the signed tolerance ------------------------------

def test_tolerance_is_relative_below_20_and_absolute_above():
    assert official(100, "The answer is 101") and not official(100, "The answer is 101.5")
    assert official(10, "The answer is 10.5") and not official(10, "The answer is 10.6")
    assert official(18, "The answer is 18.9") and not official(18, "The answer is 19.67")


def test_signed_tolerance_for_negative_golds():
    # a < 20 holds for every negative gold, so delta = |a|/20 however large |a| is.
    assert official(-10, "The answer is -10.4") and not official(-10, "The answer is -10.6")
    assert official(-100, "The answer is -96")              # delta 5 (it would be 1 for +100)
    assert not official(100, "The answer is 96")


def test_errors_count_as_not_close():
    assert not is_close("abc", normalise("3"))              # an unparsed string
    assert not is_close(normalise("x+1"), normalise("3"))   # a free symbol
    assert not official("One", "The answer is One, i.e. 1")  # gold parses to O*n*e
    assert not official("nan", "The answer is nan")          # a NaN answer matches nothing


@pytest.mark.parametrize("text", ["12", "-3", "+7", "08", "-08", "0.50", "-2.50", "3/4", "-3/4",
                                  "+3/4", "3/-4", "1/3", "10/5", "0.5/2", "-0.25/-0.5", "2.50/1.25",
                                  "0/0", "3/0", "08/3", "50%", "3 1/2", "1,000"])
def test_plain_numbers_normalise_exactly_as_sympys_latex_parser_makes_them(text):
    """Plain numbers and quotients skip the ANTLR parse (mathprobe/benchmarks/conceptmath/grading/official.py); the value must
    be the parser's own: same type, same value, same precision (a Float's digits decide
    closeness), and a string where the parser fails ('08')."""
    from sympy import simplify
    from sympy.parsing.latex import parse_latex

    from mathprobe.benchmarks.conceptmath.grading.official import _prepare

    expected = _prepare(text)
    try:
        expected = simplify(parse_latex(expected))
    except Exception:
        pass
    got = normalise(text)
    assert type(got) is type(expected) and str(got) == str(expected)
    assert got == expected or got != got                    # nan is nan
    assert getattr(got, "_prec", None) == getattr(expected, "_prec", None)


def test_the_wider_estimation_tolerance_never_applies_with_the_full_path():
    response = "The answer is 110"
    assert official_correct("100", response, "Estimation and rounding")        # |a|/5 = 20
    assert not official_correct(
        "100", response, "Calculate and Properties/Properties/Estimation and rounding")


def test_normalise():
    assert normalise("5 3/4") == normalise("23/4")
    assert float(normalise("50%")) == 0.5
    assert math.isclose(float(normalise("2π")), 6.28)
    assert float(normalise("−3")) == -3.0                   # unicode minus
    assert isinstance(normalise("\\frac{1}{2"), str)        # a failed parse keeps the string


# -- strict: the final answer only -----------------------------------------------------------

@pytest.mark.parametrize("gold, response, official_says, strict_says", [
    # any number of the span can match (official) / only the final answer (strict)
    ("12", "Sorted: 11, 12, 15. The median is 15.", True, False),
    ("5", "The answer is 5 or 6.", True, False),                       # a hedge
    ("100", "The answer is 101.", True, False),                        # no tolerance
    ("-25", "So the answer is -24.", True, False),                     # |a|/20 of 25
    ("1/8", "The answer is \\frac{1}{8}.", False, True),               # LaTeX fraction
    ("17%", "The percent increase is 17.", False, True),               # percent, bare number
    ("5", "The sales tax is 5%.", False, True),                        # official: 0.05
    ("0.98", "So, the germination rate is 98%.", True, True),
    ("1/21", "#### 4.76%", True, True),                                # a rounded decimal
    ("1/3", "The answer is 0.33.", True, True),                        # rounded to 2 places
    ("1/3", "The answer is 0.32.", True, False),                       # within 5%, not rounded
    ("27.5", "So F is approximately 27.48.", True, True),
    ("239", "The variance is 239.09.", True, False),                   # integer gold: exact
    ("[2,3]", "The answers are 3 and 2.", True, True),                 # a set
    ("[2,3]", "The answers are 3, 2 and 7.", True, False),             # no extra values
    ("4", "The cube root of 64 is 4, since 4 × 4 × 4 = 64.", True, True),
    ("18", "The value of 1 + 17|b| when b = -1 is 18.", True, True),
    ("2", "It is the second quadrant.", True, True),                   # words, 'second'
    ("4", "It is the fourth.", False, True),                           # 'fourth' too
    ("115", "因此，实际的角度是 115 度。因此，答案是 $115$ 。", True, True),
    ("2400", "24平方米=2400平方分米，所以答案是2400。", True, True),
    ("$3\\sqrt{3}$", "Final Answer: The final answer is 3\\sqrt{3}.", False, True),
    ("y=2x", "The line is $y = 2x$.", False, True),
    ("45", "So, 15 yards is equivalent to 45 feet.", True, True),      # units
])
def test_strict_against_official(gold, response, official_says, strict_says):
    assert official(gold, response) is official_says
    assert strict_correct(gold, response)[1] is strict_says


def test_strict_final_answer_comes_from_the_last_marker():
    assert strict_correct("6", "$\\boxed{5}$ ... Final Answer: The final answer is 6.") == ("6", True)
    assert strict_correct("5", "The answer is 5.\n#### 6") == ("6", False)
    assert strict_correct("2", "I think x = 2.\n\nDid I get it right?")[1]
    assert strict_correct("-1,-3", "$a = \\boxed{-1}$ and $b = \\boxed{-3}$.")[1]
    assert strict_correct("3", None) == (None, False)
    assert strict_correct("3", "No idea.") == (None, False)
    assert strict_correct("nan", "The answer is 3.")[1] is False


# -- the adapter's grade() -------------------------------------------------------------------

def test_grade_dispatch(tmp_path):
    data = make_conceptmath_dir(tmp_path)
    item = conceptmath.load(data).by_id()["element_en/1"]        # gold '5'
    assert conceptmath.grade("official", item, "x is 4, the answer is 5") == ("5", True)
    assert conceptmath.grade("official", item, None) == (None, False)
    assert conceptmath.grade("strict", item, "The answer is 5.") == ("5", True)
    with pytest.raises(ValueError):
        conceptmath.grade("judge", item, "5")


# -- loading: the real data and malformed rows -----------------------------------------------

def test_loads_the_published_data(data_dir):
    ds = conceptmath.load(data_dir)
    counts = {s: sum(1 for i in ds.items if i.group_id == s) for s in conceptmath.SYSTEMS}
    assert counts == {"element_en": 786, "element_zh": 1075, "middle_en": 1042, "middle_zh": 1108}
    by_id = ds.by_id()
    assert len(by_id) == 4011
    # Two different problems share idx 603 in element_en: both are items.
    assert by_id["element_en/603"].gold == "nan"
    assert by_id["element_en/603#2"].gold == "1/12"
    assert by_id["element_en/603"].payload["answer"] is None          # NaN is not JSON
    assert by_id["element_en/1"].concept == ("geometry/angles/Acute, right, obtuse, and "
                                            "straight angles")
    assert by_id["middle_en/3"].gold == "[-1,1,5]"
    assert by_id["element_en/432"].gold == "12"                       # an int answer
    assert by_id["element_en/432"].payload["answer"] == 12


def _broken(tmp_path: Path, line) -> Path:
    rows = [row("element_en", 1, "A", "a", "x", "5"), line]
    return make_conceptmath_dir(tmp_path, {"element_en": rows})


@pytest.mark.parametrize("line, field, text", [
    ({k: v for k, v in row("element_en", 2, "A", "a", "x", "5").items() if k != "cate1"},
     "cate1", "missing"),
    ({**row("element_en", 2, "A", "a", "x", "5"), "idx": "2"}, "idx", "integer"),
    ({**row("element_en", 2, "A", "a", "x", "5"), "grade": "middle_en"}, "grade", "match"),
    ({**row("element_en", 2, "A", "a", "x", "5"), "answer": True}, "answer", "string or a number"),
    ({**row("element_en", 2, "A", "a", "x", "5"), "answer": [1, 2]}, "answer", "string or a number"),
    ({k: v for k, v in row("element_en", 2, "A", "a", "x", "5").items() if k != "answer"},
     "answer", "missing"),
    ({**row("element_en", 2, "A", "a", "x", "5"), "question": " "}, "question", "non-empty"),
    (row("element_en", 1, "A", "a", "x", "5"), "idx", "twice"),           # same idx and question
    ('{"idx": 2, "cate0": ', None, "not valid JSON"),
    ([1, 2], None, "JSON object"),
])
def test_malformed_rows_name_file_row_and_field(tmp_path, line, field, text):
    data = _broken(tmp_path, line)
    with pytest.raises(DataError) as exc:
        conceptmath.load(data)
    err = exc.value
    assert err.file.endswith("element_en.jsonl") and err.row == 2 and err.field == field
    assert text in str(err) and "row 2" in str(err)


def test_missing_system_file(tmp_path):
    data = make_conceptmath_dir(tmp_path)
    (data / "conceptmath" / "middle_zh.jsonl").unlink()
    with pytest.raises(DataError, match="middle_zh.jsonl: file not found"):
        conceptmath.load(data)


# -- the authors' response files -------------------------------------------------------------

def _results(tmp_path: Path, rows: list) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_read_official_results_and_its_errors(tmp_path):
    data = make_conceptmath_dir(tmp_path / "d", {"element_en": [
        row("element_en", 1, "A", "a", "x", "5"),
        row("element_en", 7, "A", "a", "x", "1", question="first seven"),
        row("element_en", 7, "A", "a", "x", "2", question="second seven")]})
    ds = conceptmath.load(data)
    base = row("element_en", 1, "A", "a", "x", "5")
    got = conceptmath.read_official_results(_results(tmp_path, [
        {**base, "response": "5"},
        {**row("element_en", 7, "A", "a", "x", "2", question="second seven"), "response": "2"},
        {**row("element_en", 7, "A", "a", "x", "1", question="first seven")}]), ds)
    assert [(i.item_id, r) for i, r in got] == [("element_en/1", "5"), ("element_en/7#2", "2"),
                                                ("element_en/7", None)]
    cases = [
        ({**base, "grade": "high_en"}, "grade", "unknown system"),
        ({**base, "idx": 99}, "idx", "no such problem"),
        ({**base, "question": "other"}, "question", "differs"),
        ({**row("element_en", 7, "A", "a", "x", "1", question="third")}, "question", "matches none"),
        ({**row("element_en", 7, "A", "a", "x", "1", question="first seven"), "response": 5},
         "response", "expected a string"),
    ]
    for bad, field, text in cases:
        with pytest.raises(DataError) as exc:
            conceptmath.read_official_results(_results(tmp_path, [{**base, "response": "5"}, bad]),
                                              ds)
        assert exc.value.row == 2 and exc.value.field == field and text in str(exc.value)
    with pytest.raises(DataError, match="appears twice") as exc:
        conceptmath.read_official_results(_results(tmp_path, [base, base]), ds)
    assert exc.value.row == 2


def test_a_file_graded_against_its_own_answer(tmp_path):
    """The authors' grader reads the answer from the file it grades; so does an import."""
    data = make_conceptmath_dir(tmp_path / "d", {"element_en": [
        row("element_en", 1, "A", "a", "x", "[second ,third]")]})
    ds = conceptmath.load(data)
    response = "It lies in the second or third quadrant: 2 and 3."
    item = ds.by_id()["element_en/1"]
    assert conceptmath.grade("official", item, response)[1] is False   # the dataset's answer
    (read, text), = conceptmath.read_official_results(_results(tmp_path, [
        {**row("element_en", 1, "A", "a", "x", "[2 ,3]"), "response": response}]), ds)
    assert read.gold == "[2 ,3]" and read.payload["answer"] == "[second ,third]"
    assert conceptmath.grade("official", read, text)[1] is True
    # and an import grades the response against the file's answer
    from mathprobe import runs
    from mathprobe.store import Store
    results = _results(tmp_path, [{**row("element_en", 1, "A", "a", "x", "[2 ,3]"),
                                   "response": response}])
    store = Store(tmp_path / "s.duckdb")
    runs.import_official(store, conceptmath.benchmark, data, results, "file-gold")
    assert store.query("SELECT correct FROM item_verdicts WHERE grader = 'official'") == [(True,)]


# -- prompts and the subset ------------------------------------------------------------------

def test_three_prompt_settings(tmp_path):
    data = make_conceptmath_dir(tmp_path)
    ds = conceptmath.load(data)
    en, zh = ds.by_id()["element_en/1"], ds.by_id()["middle_zh/1"]
    assert conceptmath.build_prompt(en, "zs") == en.question
    assert conceptmath.build_prompt(en, "zs-cot") == f"{en.question}\nLet's think step by step."
    assert conceptmath.build_prompt(zh, "zs-cot").endswith("让我们一步一步地思考。")
    # few-shot: the system's chat turns as written in the file, then the question
    fs = conceptmath.build_prompt(en, "fs")
    turns = json.loads((data / "conceptmath" / "fewshot_authors_chat.json").read_text())
    assert isinstance(fs, Chat) and fs.prompt == en.question
    assert [{"role": r, "content": c} for r, c in fs.turns] == turns["element_en"]
    assert conceptmath.build_prompt(zh, "fs").turns[0] == ("user", "middle_zh shot question 1")
    with pytest.raises(ValueError):
        conceptmath.build_prompt(en, "cot")


def test_few_shot_is_the_authors_chat(data_dir):
    """The exemplars of the authors' evaluation code (evaluation/utils/prompt_utils.py), not the
    PDF transcription: 5 user / assistant pairs, answers ending the authors' way."""
    ds = conceptmath.load(data_dir)
    item = ds.by_id()["middle_en/1"]
    chat = conceptmath.build_prompt(item, "fs")
    assert chat.prompt == item.question and len(chat.turns) == 10
    assert [r for r, _ in chat.turns] == ["user", "assistant"] * 5
    assert chat.turns[0][1].startswith("g(x) = x^2, f(x) = 3(x-2)^2")
    assert all(a.rstrip().endswith(".") and "Therefore, the answer is" in a
               for r, a in chat.turns if r == "assistant")
    zh = conceptmath.build_prompt(ds.by_id()["element_zh/1"], "fs")
    assert zh.turns[7][1].endswith("因此，答案是115米。")              # their typo, kept
    pdf = json.loads((data_dir / "conceptmath" / "fewshot_5shot.json").read_text())
    assert all(p["answer"] != a for p, (_, a) in zip(pdf["middle_en"], chat.turns[1::2]))


def test_few_shot_without_its_file(tmp_path):
    data = make_conceptmath_dir(tmp_path, fewshot=False)
    item = conceptmath.load(data).items[0]
    assert conceptmath.build_prompt(item, "zs")
    with pytest.raises(DataError, match="fewshot_authors_chat.json"):
        conceptmath.build_prompt(item, "fs")


@pytest.mark.parametrize("damage, message", [
    (lambda t: t[:8], "10 chat turns"),
    (lambda t: [t[1], t[0], *t[2:]], "expected role 'user'"),
    (lambda t: [*t[:3], {"role": "assistant", "content": " "}, *t[4:]], "missing or empty"),
])
def test_malformed_fewshot_file(tmp_path, damage, message):
    data = make_conceptmath_dir(tmp_path)
    path = data / "conceptmath" / "fewshot_authors_chat.json"
    shots = json.loads(path.read_text())
    shots["middle_en"] = damage(shots["middle_en"])
    path.write_text(json.dumps(shots))
    with pytest.raises(DataError, match=message) as exc:
        conceptmath.load(data)
    assert exc.value.field.startswith("middle_en") and str(path) in str(exc.value)


def test_select_covers_every_system(data_dir):
    items = conceptmath.load(data_dir).items
    chosen = conceptmath.select(items, 40)
    assert len(chosen) == 40
    for system in conceptmath.SYSTEMS:          # proportional to the system's size, +-1
        share = 40 * sum(1 for i in items if i.group_id == system) / len(items)
        assert abs(sum(1 for i in chosen if i.group_id == system) - share) < 1, system
    assert len({i.concept for i in chosen}) == 40                 # spread over leaves too
    assert {i.item_id for i in chosen} <= {i.item_id for i in conceptmath.select(items, 80)}
    assert conceptmath.select(items, None) == list(items)
    assert len(conceptmath.select(items, 5)) == 5
