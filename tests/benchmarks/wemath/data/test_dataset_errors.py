"""Bad input names the file, the row and the field."""
import json

import pytest

from mathprobe.benchmarks import wemath
from mathprobe.errors import DataError
from tests.benchmarks.wemath.helpers import make_wemath_dir, responses_for

SPEC = {"2steps_1": {"gold": ["A", "B", "C"], "concepts": ["Leaf One", "Leaf Two",
                                                           "Leaf One;Leaf Two"]}}


@pytest.fixture(autouse=True)
def fresh_cache():
    wemath.load.cache_clear()
    yield
    wemath.load.cache_clear()


def test_missing_image(tmp_path):
    root = make_wemath_dir(tmp_path, SPEC, skip_image="img/2steps_1-2steps_2.png")
    with pytest.raises(DataError) as err:
        wemath.load(root)
    msg = str(err.value)
    assert "testmini.json" in msg and "row 2" in msg and "'image_path'" in msg
    assert "2steps_1/2steps_2" in msg and "2steps_1-2steps_2.png" in msg


def test_missing_field(tmp_path):
    root = make_wemath_dir(tmp_path, SPEC)
    path = root / "wemath" / "testmini.json"
    rows = json.loads(path.read_text())
    del rows[2]["answer"]
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"testmini.json: row 3 \(2steps_1/2steps_multi\): "
                                        r"field 'answer': missing"):
        wemath.load(root)


def test_unknown_concept_and_bad_answer(tmp_path):
    root = make_wemath_dir(tmp_path, SPEC)
    path = root / "wemath" / "testmini.json"
    rows = json.loads(path.read_text())
    rows[0]["knowledge concept"] = "Leaf Nine"
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"row 1 .*field 'knowledge concept'.*Leaf Nine"):
        wemath.load(root)
    rows[0]["knowledge concept"] = "Leaf One"
    rows[1]["answer"] = "Z"
    path.write_text(json.dumps(rows))
    wemath.load.cache_clear()
    with pytest.raises(DataError, match=r"row 2 .*field 'answer'"):
        wemath.load(root)


def test_an_answer_not_among_the_options(tmp_path):
    """A letter the row's options do not offer (E of A-D) could never be answered right: the
    row is refused, naming it, not graded wrong for every model."""
    root = make_wemath_dir(tmp_path, SPEC)
    path = root / "wemath" / "testmini.json"
    rows = json.loads(path.read_text())
    rows[1]["answer"] = "E"
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError) as err:
        wemath.load(root)
    assert (err.value.row, err.value.field, err.value.item) == (2, "answer", "2steps_1/2steps_2")
    assert "answer 'E' is not among the options (A, B, C, D)" in str(err.value)
    assert "testmini.json" in err.value.file


def test_incomplete_problem(tmp_path):
    root = make_wemath_dir(tmp_path, SPEC)
    path = root / "wemath" / "testmini.json"
    rows = json.loads(path.read_text())
    path.write_text(json.dumps(rows[:2]))
    with pytest.raises(DataError, match=r"problem 2steps_1 has questions"):
        wemath.load(root)


def test_bad_rows_in_a_result_file(tmp_path):
    root = make_wemath_dir(tmp_path / "d", SPEC)
    dataset = wemath.load(root)
    rows = responses_for(root, {"2steps_1": [True, True, True]})
    results = tmp_path / "r.json"

    rows[1]["key"] = "2steps_7"
    results.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"r.json: row 2 \(2steps_1/2steps_7\): field 'ID': no such"):
        wemath.read_official_results(results, dataset)

    rows[1]["key"] = "2steps_1"
    results.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"row 2 .*appears twice"):
        wemath.read_official_results(results, dataset)

    rows[1]["key"] = "2steps_2"
    rows[1]["response"] = {"text": "A"}
    results.write_text(json.dumps(rows))
    with pytest.raises(DataError, match=r"row 2 .*field 'response': expected a string"):
        wemath.read_official_results(results, dataset)


def test_jsonl_result_files_are_read_too(tmp_path):
    root = make_wemath_dir(tmp_path / "d", SPEC)
    dataset = wemath.load(root)
    rows = responses_for(root, {"2steps_1": [True, False, True]})
    results = tmp_path / "r.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = wemath.read_official_results(results, dataset)
    assert [wemath.grade("official", r.item, r.response)[1] for r in got] == [True, False, True]


def test_bytes_that_are_not_utf8_name_the_row_and_field(tmp_path):
    root = make_wemath_dir(tmp_path, SPEC)
    path = root / "wemath" / "testmini.json"
    data = path.read_bytes()
    at = data.index(b"2steps_1 question 2")
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])      # Latin-1 junk inside a question
    with pytest.raises(DataError) as err:
        wemath.load(root)
    assert (err.value.row, err.value.field) == (2, "question")
    assert "testmini.json: row 2: field 'question': not valid UTF-8: byte 0xff at offset" \
        in str(err.value)
