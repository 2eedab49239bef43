"""CMMaTH's knowledge points: the leaves of a record's nested `knowledge_point` path.

`knowledge_point` is a nested path such as
    立体几何初步(基本立体图形(三视图(三视图与几何体转化问题,利用三视图求体积)))
The structure is written with ASCII brackets and commas only: across the published sample
(3234 bracket pairs, 960 commas) every full-width bracket （…） (24 pairs), full-width comma
， (3) and enumeration comma 、 (651) sits *inside* a point's name, as a qualifier or a list
that names one point: 古典概型的概率计算（不涉及计数原理）, 众数、中位数、平均数,
作三角形的高，中线和角平分线. So those are kept as part of the name (they must balance within
it), and the leaves of the ASCII structure are the question's knowledge points (the paper's
definition: a question counts toward each of its points).

The authors' code (tool/statics_acc.py, SSR) counts ONE point per question instead, found by a
bracket walk over `knowledge_point`: `official_point`.
"""
from __future__ import annotations

import unicodedata
from typing import Any


class PointSyntaxError(ValueError):
    pass


def _check_name(name: str, text: str) -> str:
    name = name.strip()
    if not name:
        raise PointSyntaxError(f"empty knowledge point name in {text!r}")
    depth = 0
    for ch in name:
        depth += {"（": 1, "）": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise PointSyntaxError(f"unbalanced full-width brackets in {name!r} (in {text!r})")
    return name


def parse_points(text: str) -> list[tuple[str, str]]:
    """Leaf knowledge points of a nested path text, as (leaf, path) in order, without repeats.

    `A(B(C,D),E)` -> [("C", "A > B > C"), ("D", "A > B > D"), ("E", "A > E")]. Raises
    PointSyntaxError on unbalanced brackets, empty names or text after a closing bracket.
    """
    text = unicodedata.normalize("NFC", text or "").strip()
    if not text:
        return []
    pos = 0
    leaves: list[tuple[str, str]] = []

    def node_list(ancestors: list[str]) -> None:
        nonlocal pos
        while True:
            start = pos
            while pos < len(text) and text[pos] not in "(),":
                pos += 1
            name = _check_name(text[start:pos], text)
            if pos < len(text) and text[pos] == "(":
                pos += 1
                node_list([*ancestors, name])
                if pos >= len(text) or text[pos] != ")":
                    raise PointSyntaxError(f"missing ')' in {text!r}")
                pos += 1
                if pos < len(text) and text[pos] not in "),":
                    raise PointSyntaxError(f"text after ')' at position {pos} in {text!r}")
            else:
                leaves.append((name, " > ".join([*ancestors, name])))
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            return

    node_list([])
    if pos != len(text):
        raise PointSyntaxError(f"unbalanced ')' at position {pos} in {text!r}")
    seen: dict[str, str] = {}
    for leaf, path in leaves:
        seen.setdefault(leaf, path)
    return list(seen.items())


def item_points(record: dict[str, Any]) -> tuple[list[tuple[str, str]], str | None]:
    """(leaves, source field): `knowledge_point`, or `skill` when that is empty."""
    for f in ("knowledge_point", "skill"):
        value = record.get(f)
        if isinstance(value, str) and value.strip():
            return parse_points(value), f
    return [], None


def official_point(knowledge_point: str | None) -> str | None:
    """The one knowledge point the authors' SSR counts a question toward: the text between the
    '(' that opens the first bracket to close and the '(' before it (the parent of the
    innermost point: 立体几何初步(基本立体图形(三视图(A,B))) -> 三视图), "" when no '(' comes
    before it. None where their walk skips the question: no knowledge_point, no ')' at all,
    or a ')' before any '(' (ASCII brackets only, as theirs)."""
    if knowledge_point is None:
        return None
    close = knowledge_point.find(")")
    opened = knowledge_point.rfind("(", 0, close) if close >= 0 else -1
    if opened < 0:
        return None
    parent = knowledge_point.rfind("(", 0, opened)
    return "" if parent < 0 else knowledge_point[parent + 1:opened]
