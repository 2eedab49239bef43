"""Reading data and result files: bytes that are not UTF-8 are a data error like any other,
naming the file, the row and the field (never a UnicodeDecodeError traceback)."""
import json

import pytest

from mathprobe.errors import DataError
from mathprobe.files import read_json, read_jsonl, read_records


def corrupt(text: str, marker: str) -> bytes:
    """`text` as UTF-8 with a lone 0xe9 (Latin-1 'é') put before `marker`."""
    data = text.encode()
    at = data.index(marker.encode())
    return data[:at] + b"\xe9" + data[at:]


def test_json_lines_name_the_line_and_the_nested_field(tmp_path):
    rows = [{"idx": 1, "question": "fine"},
            {"idx": 2, "metadata": {"ocr": "caf\u00e9 ok", "note": "MARK here"}}]
    path = tmp_path / "x.jsonl"
    path.write_bytes(corrupt("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "MARK"))
    for reader in (read_jsonl, read_records):
        with pytest.raises(DataError) as err:
            reader(path)
        assert (err.value.row, err.value.field) == (2, "metadata.note")
        assert "byte 0xe9" in str(err.value) and "line 2" in str(err.value)


def test_a_json_object_of_lists_names_the_list_item_and_key(tmp_path):
    data = {"element_en": [{"question": "q1", "answer": "1"}, {"question": "MARK", "answer": "2"}]}
    path = tmp_path / "fewshot.json"
    path.write_bytes(corrupt(json.dumps(data, indent=1), "MARK"))
    with pytest.raises(DataError) as err:
        read_json(path)
    assert (err.value.row, err.value.field) == (2, "element_en.question")


def test_a_bad_byte_outside_any_string_still_names_the_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_bytes(b'[\n {"a": 1},\n \xff{"a": 2}\n]')
    with pytest.raises(DataError) as err:
        read_json(path)
    assert err.value.row == 3 and "not valid UTF-8" in str(err.value)
