"""docs/faults.md lists every reliability guarantee with the test that holds it: each test it
names (`tests/x.py::name`, or `::name` after one of the same file) exists, so the page cannot
name a test that was renamed or removed."""
from __future__ import annotations

import ast
import re

from tests.conftest import REPO

CELL = re.compile(r"`(tests/[\w/]+\.py)?::(\w+)`")


def test_every_test_the_reliability_page_names_exists():
    text = (REPO / "docs" / "faults.md").read_text()
    named: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.startswith("| "):
            continue
        current = None
        for path, name in CELL.findall(line):
            current = path or current
            assert current, line
            named.append((current, name))
    assert len(named) >= 40, named
    missing = []
    for path, name in named:
        tree = ast.parse((REPO / path).read_text())
        functions = {n.name for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        if name not in functions:
            missing.append(f"{path}::{name}")
    assert missing == []
