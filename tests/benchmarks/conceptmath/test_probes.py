"""ConceptMath's probe protocols piece by piece: the first half given as is, the option labels
of likelihood classification, Rouge-L on Chinese characters. (End to end, over HTTP and
Triton: test_flow.py.)"""
from __future__ import annotations

import pytest

from mathprobe.benchmarks.conceptmath import probes
from mathprobe.items import Item


def item(question: str, system: str = "element_en") -> Item:
    return Item(benchmark="conceptmath", item_id=f"{system}/1", question=question, gold="1",
                group_id=system, payload={"cate0": "A", "cate1": "a"})


def test_first_half_is_cut_from_the_text_as_is():
    q = "A train  travels 60 km\nin 1.5 hours. What is its speed?"
    first, second = probes.halves(item(q))
    assert (first, second) == ("A train  travels 60 km\nin", "1.5 hours. What is its speed?")
    assert q.startswith(first)                               # spacing and newline untouched
    odd = "one two three four five"
    assert probes.halves(item(odd)) == ("one two", "three four five")
    zh = "小明有5个苹果，吃了2个，还剩几个？"
    first, second = probes.halves(item(zh, "element_zh"))
    assert first + second == zh and len(first) == len(zh) // 2
    request = probes.continuation_request(item(q), "openai:m")
    assert request.prompt == "A train  travels 60 km\nin" and request.system is None
    assert request.params == {"temperature": 0.0, "max_tokens": 256}


def test_rouge_l_on_characters_for_chinese():
    assert probes.rouge_l("还剩几个", "还剩几个", "zh") == 1.0
    assert probes.rouge_l("还剩几个", "还 剩", "zh") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert probes.rouge_l("what is its speed", None, "en") == 0.0


@pytest.mark.parametrize("k, label", [(0, "A"), (17, "R"), (25, "Z"), (26, "AA"), (27, "AB"),
                                      (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA")])
def test_option_labels_past_z(k, label):
    assert probes.option_label(k) == label


def test_open_models_see_lettered_options_and_score_the_labels():
    options = ["Algebra/equations", "Geometry/angles", "Numbers/fractions"]
    request = probes.classify_request(item("What is x if 2x = 4?"), "triton:m", options, True)
    assert request.choices == ("A", "B", "C")
    assert request.system == ("Which mathematical concept does the following question test?\n"
                              "Question: What is x if 2x = 4?\n"
                              "A. Algebra/equations\nB. Geometry/angles\nC. Numbers/fractions\n"
                              "Answer:")
    assert request.params == {"rank": "label-likelihood"}
    api = probes.classify_request(item("What is x if 2x = 4?"), "openai:m", options, False)
    assert "1. Algebra/equations\n2. Geometry/angles" in api.prompt and api.choices == tuple(options)
    assert probes.parse_ranking("3, 1, 2", 3) == [3, 1, 2]
