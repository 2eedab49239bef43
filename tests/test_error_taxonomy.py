"""The three papers' error taxonomies as declared (names and definitions as the papers write
them, each with its source) and how a labeller's reply is read: its last `Error type:` line
naming exactly one type is a label; anything else is no label, never a guess."""
from __future__ import annotations

import pytest

from mathprobe import registry
from tests.conftest import REPO

WEMATH = registry.get("wemath").error_taxonomy
CMMATH = registry.get("cmmath").error_taxonomy
CONCEPTMATH = registry.get("conceptmath").error_taxonomy


def test_the_papers_names_and_sources():
    assert WEMATH.names == ("Knowledge Error", "Reason Error", "Visual Error", "Hallucination")
    assert CMMATH.names == ("Perception Error", "Reasoning Error", "Calculation Error",
                            "Reject Error")
    assert CONCEPTMATH.names == ("Calculation Error", "Knowledge Error", "Other Error")
    assert "Table 9" in WEMATH.source and "Figure 6" in CMMATH.source
    assert "Table 4" in CONCEPTMATH.source
    # a type mathprobe adds says so; the paper's carry the paper's source
    (other,) = CONCEPTMATH.added
    assert other.source.startswith("mathprobe")
    assert all(not t.source for t in CONCEPTMATH.types)
    assert CMMATH.no_attempt == "Reject Error" and WEMATH.no_attempt is None


def test_the_docs_give_every_definition_verbatim():
    doc = " ".join((REPO / "docs" / "error-analysis.md").read_text().split())
    for tax in (WEMATH, CMMATH, CONCEPTMATH):
        assert tax.source in doc
        for t in tax.all_types:
            assert " ".join(t.definition.split()) in doc, t.name


@pytest.mark.parametrize("reply, label", [
    ('First error: "45 + 45 = 100"\nReason: arithmetic.\nError type: Reason Error', "Reason Error"),
    ("...\n**Error type:** Visual Error.", "Visual Error"),
    ("Error type: <Knowledge Error>", "Knowledge Error"),
    ("error type: hallucination", "Hallucination"),
    ("Error Type: Knowledge Error (the area formula is misused)", "Knowledge Error"),
    # the last line counts: a reply that corrects itself
    ("Error type: Visual Error\nOn reflection:\nError type: Reason Error", "Reason Error"),
    # not readable: no label
    ("It is a Knowledge Error.", None),
    ("Error type: Reasoning Error", None),            # CMMaTH's name, not WE-MATH's
    ("Error type: Knowledge Error or Visual Error", None),
    ("Error type: Hallucinations", None),
    ("Error type:", None),
    ("", None),
    (None, None),
])
def test_a_reply_is_read_or_gives_no_label(reply, label):
    got = WEMATH.read_label(reply)
    assert (got.error_type if got else None) == label


def test_the_first_error_and_the_reason_are_kept():
    got = CMMATH.read_label('First error: "2x + 3 = 9, so x = 4"\nReason: 9 - 3 = 6, not 8.\n'
                            "Error type: Calculation Error")
    assert (got.error_type, got.first_error, got.rationale) == (
        "Calculation Error", "2x + 3 = 9, so x = 4", "9 - 3 = 6, not 8.")


def test_the_prompt_gives_the_labeller_what_it_needs():
    system, user = WEMATH.prompt("How long is AB?\nOption: A. 3;B. 4", "B", "AB is 3. Answer: A")
    assert "How long is AB?\nOption: A. 3;B. 4" in user and "Reference answer: B" in user
    assert "<<<\nAB is 3. Answer: A\n>>>" in user
    for t in WEMATH.types:
        assert f"- {t.name}: {t.definition}" in user
    assert WEMATH.protocol in user and "quote it exactly" in user
    assert user.splitlines()[-1] == ("Error type: <one of: Knowledge Error, Reason Error, "
                                     "Visual Error, Hallucination>")
    _, other = CONCEPTMATH.prompt("q", "1", "r")
    assert "- Other Error (defined by mathprobe, for what fits neither type):" in other
