"""The order the store applies its SQL files in: each file after the files that create what it
mentions. A file is found by the object it creates (`sql/wemath/figures/wemath_step_accuracy.sql`),
never by a number in its name, and adding an object is adding its file.

A file creates the tables, views, macros and sequences of its CREATE statements, and for a line
`-- @stored <view>` the view and its table `<view>_stored` (mathprobe/store/stored_sql.py). It
mentions every word of its statements that another file creates: `--` comments, COMMENT ON and
DROP statements are left out (their prose and old names are no dependency), string literals
count (`x_of('run_data')` reads run_data). The files are put in topological order of those
mentions, taking among the files that could come next the one listed first (the core layer,
then each benchmark's files as its `sql_files()` lists them), so the order is the same
everywhere and the core always comes first.

What no order can fix is an error naming the file (SqlLayerError): a name after FROM or JOIN that
no file creates (nor a CTE of the statement, a parameter of its macro, a DuckDB table function),
an object two files create, or files that mention each other round a cycle.
"""
from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from functools import lru_cache
from graphlib import CycleError, TopologicalSorter

import duckdb

from mathprobe.errors import MathprobeError
from mathprobe.store.run_data import STORED_SUFFIX
from mathprobe.store.stored_sql import COMMENT_RE, DIRECTIVE_RE

_STRING_OR_COMMENT = re.compile(r"'(?:[^']|'')*'|\$\$.*?\$\$|--[^\n]*", re.S)
_CREATE = re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?"
                     r"(TABLE|VIEW|MACRO|SEQUENCE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I)
_DROP = re.compile(r"\bDROP\s+(?:TABLE|VIEW|MACRO|SEQUENCE)\s+(?:IF\s+EXISTS\s+)?\w+", re.I)
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
# a relation read: FROM / JOIN, then a name (with `(` after it: a table function)
_READ = re.compile(r"(\w+\s+)?\b(?:FROM|JOIN)\s+(?:LATERAL\s+)?(?!LATERAL\b)([A-Za-z_]\w*)(\s*[(.])?",
                   re.I)
_CTE = re.compile(r"(?:\bWITH|,)\s*(?:RECURSIVE\s+)?(\w+)\s*(?:\([^)]*\))?\s+AS\s+"
                  r"(?:(?:NOT\s+)?MATERIALIZED\s+)?\(", re.I)
_MACRO_PARAMS = re.compile(r"\bMACRO\s+\w+\s*\(([^)]*)\)", re.I)


class SqlLayerError(MathprobeError):
    """The SQL files cannot be applied in any order (the message names the file)."""


def without_comments(text: str) -> str:
    """A SQL text without its `--` comments (string literals kept as they are)."""
    return _STRING_OR_COMMENT.sub(lambda m: "" if m.group().startswith("--") else m.group(), text)


def statements(text: str) -> str:
    """A SQL text's statements but its comments: no `--` comments, no COMMENT ON statements."""
    return without_comments(COMMENT_RE.sub("", text))


def code(text: str) -> str:
    """What of a SQL text defines objects: its statements but COMMENT ON and DROP."""
    return _DROP.sub("", statements(text))


def creates(text: str) -> list[str]:
    """The objects a SQL text creates, in order."""
    names = [m.group(2).lower() for m in _CREATE.finditer(code(text))]
    for m in DIRECTIVE_RE.finditer(text):
        names += [m.group(1).lower(), m.group(1).lower() + STORED_SUFFIX]
    return names


def _reads(text: str) -> list[tuple[str, bool]]:
    """The relations a text reads by name after FROM / JOIN, with whether each is called (a
    table function or macro), leaving out its CTEs and macro parameters."""
    bare = _STRING_OR_COMMENT.sub(" ", code(text))      # strings blanked too
    local = {m.group(1).lower() for m in _CTE.finditer(bare)}
    for m in _MACRO_PARAMS.finditer(bare):
        local |= {p.split(":=")[0].strip().lower() for p in m.group(1).split(",")}
    out = []
    for m in _READ.finditer(bare):
        before, name, after = (m.group(1) or "").strip().upper(), m.group(2).lower(), m.group(3)
        if before == "DISTINCT" or (after and after.strip() == ".") or name in local:
            continue                      # IS [NOT] DISTINCT FROM x; a qualified column
        out.append((name, bool(after)))
    return out


@lru_cache(maxsize=1)
def _duckdb_table_functions() -> frozenset[str]:
    con = duckdb.connect()
    try:
        return frozenset(n for (n,) in con.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() "
            "WHERE function_type = 'table'").fetchall())
    finally:
        con.close()


def order(files: Sequence[tuple[str, str]]) -> list[int]:
    """The positions of `files` ((name, text) pairs, texts with their `@stored` directives
    written out or not) in the order they are applied; SqlLayerError where there is none."""
    home: dict[str, int] = {}
    for i, (name, text) in enumerate(files):
        for obj in creates(text):
            if home.setdefault(obj, i) != i:
                raise SqlLayerError(f"{name}: creates {obj}, which {files[home[obj]][0]} "
                                    "creates too (one object, one file)")
    needs: list[set[int]] = []
    for i, (name, text) in enumerate(files):
        for rel, called in _reads(text):
            if rel not in home and not (called and rel in _duckdb_table_functions()):
                raise SqlLayerError(f"{name}: reads {rel}, which no SQL file creates")
        words = {w.lower() for w in _WORD.findall(code(text))}
        needs.append({home[w] for w in words if w in home} - {i})
    graph = TopologicalSorter({i: need for i, need in enumerate(needs)})
    try:
        graph.prepare()
    except CycleError as exc:
        loop = exc.args[1][::-1]            # each file before one it needs
        raise SqlLayerError(f"{files[loop[0]][0]}: the SQL files mention each other in a "
                            "cycle, " + " -> ".join(files[i][0] for i in loop)
                            + " (a file cannot use what a file using it creates)") from None
    ready: list[int] = []
    out: list[int] = []
    while graph.is_active():
        for i in graph.get_ready():
            heapq.heappush(ready, i)
        i = heapq.heappop(ready)           # of the files that could come next, the first listed
        out.append(i)
        graph.done(i)
    return out
