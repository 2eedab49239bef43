"""The contamination check of select-data against ConceptMath's real questions: a question
copied (English, Chinese), copied with words changed, a short formula question written as it is,
and text that only shares the vocabulary."""
from __future__ import annotations

import pytest

from mathprobe.benchmarks import conceptmath
from mathprobe.benchmarks.conceptmath.targeted.overlap import BenchmarkOverlap


@pytest.fixture(scope="module")
def index(data_dir):
    conceptmath.load.cache_clear()
    items = conceptmath.load(data_dir).items
    return BenchmarkOverlap(items), {i.item_id: i.question for i in items}


def test_copies_are_found_by_the_probe_that_should(index):
    overlap, q = index
    copied = overlap.check("From a forum: " + q["element_en/1"] + " Thanks!")
    assert (copied.item_id, copied.probe) == ("element_en/1", "13-gram")
    words = q["element_en/1"].split()          # 22 words: no 13 in a row left unchanged
    for k in (7, 14):
        words[k] = "banana"
    edited = overlap.check("Intro. " + " ".join(words) + " and more")
    assert (edited.item_id, edited.probe) == ("element_en/1", "rouge-l") and edited.value >= 0.7
    zh = overlap.check("网友提问：" + q["element_zh/8"] + "谢谢")
    assert zh.item_id == "element_zh/8"
    short = next(i for i, t in q.items() if t == "1/5+3/10=?")
    found = overlap.check("Homework: 1/5 + 3/10 = ? Answer below.")
    assert (found.item_id, found.probe) == (short, "exact")


def test_text_about_the_same_things_is_not_a_copy(index):
    overlap, q = index
    assert overlap.check("A cake cut into equal slices makes angles at its centre: a right "
                         "angle is a quarter turn, an obtuse angle is more than that.") is None
    assert overlap.check("圆锥的体积等于与它等底等高的圆柱体积的三分之一。") is None
    assert overlap.n_too_short > 0 and len(overlap) > 3900
