"""The authors' answer extraction, including the cases where it is deliberately naive."""
import pytest

from mathprobe.benchmarks.wemath import extract_official, option_letters


@pytest.mark.parametrize("response, expected", [
    ("<Thought process>: <<x>> <Answer>: <<B>>", "B"),
    ("Answer: E", "E"),
    ("<Answer>: C. 60°", "C"),
    # only the text after the LAST 'Answer' counts
    ("First Answer: B, but the final Answer: C", "C"),
    ("Answer: A ... on reflection, Answer: D", "D"),
    # lowercase letters are not accepted (uppercase only, as in the authors' script)
    ("Answer:a", None),
    ("Answer: b", None),
    # 'answer' in lowercase is not the marker: the whole response is read, first char 'T'
    ("The answer is D", None),
    # a bracketed letter: '(' is not stripped, so nothing is extracted
    ("<Answer>: (B)", None),
    # no marker at all, but the response starts with a letter: taken as the answer
    ("B because the angle is 60", "B"),
    # the first character must be A-H: "I ..." is not an option letter
    ("I cannot determine the answer from the figure.", None),
    ("A triangle has three sides", "A"),
    ("", None),
    ("   ", None),
    (None, None),
    ("Answer:", None),
    ("Answer: H", "H"),
    ("Answer: Z", None),
])
def test_official_extraction(response, expected):
    assert extract_official(response) == expected


def test_option_letters_follow_the_alphabet():
    assert option_letters("A. 30°;B. 60°;C. 90°;D. 120°;E. No correct answer") == tuple("ABCDE")
    # options without ';' separators, and a full-width period
    assert option_letters("A. 45° B. 60° ;C. 120°; D. No correct answer") == tuple("ABCD")
    assert option_letters("A. ①;B．②;C. ③") == tuple("ABC")
    # a stray 'G.' inside an option's text is not an option
    assert option_letters("A. Equal; B. twice BE;G.; C. half; D. none") == tuple("ABCD")
