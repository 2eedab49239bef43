"""A stored figure is declared by one line of SQL, written out here when the SQL is applied.

A figure the store keeps per run (so reading hundreds of runs reads rows instead of recomputing
each run: mathprobe/store/run_data.py) needs a table of the figure's rows, a view that reads those
rows for the runs whose data has not changed since and computes the others live, and a comment
on the table and each of its columns. All of it follows from the figure's live macro, so a
benchmark writes only the macro and, on a line of its own after it, the directive:

    CREATE OR REPLACE MACRO myfigure_of(runs) AS TABLE ...;
    -- @stored myfigure

Plain SQL tools read the line as a comment. `expand` (run on the texts, because a DuckLake
store applies texts, not files) writes it out as

  * `myfigure_stored`, created with exactly the columns of `myfigure_of` (names, order, types)
    from the macro's plan alone: `... WITH NO DATA` plans as an empty result, so a store of a
    million responses computes nothing (`IF NOT EXISTS`: the table, and the rows of an
    existing store, are kept);
  * the view `myfigure`: the stored rows of the runs in `stored_runs` UNION ALL
    `myfigure_of('live_run_spans')`;
  * `COMMENT ON TABLE myfigure_stored` (a fixed sentence naming the view) and, for each column,
    a copy of the view column's comment, wherever in the layer it is written; the comments go
    at the end of the text holding the view's last comment (the view's own file; the store
    writes every comment after every definition, mathprobe/store/sql.py). A column the view's
    files leave to the shared descriptions (`column_docs()`, run_id, grader) gets the same one
    on both.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from mathprobe.store.run_data import STORED_SUFFIX

# the directive: alone on its line
DIRECTIVE_RE = re.compile(r"^--[ \t]*@stored[ \t]+(\w+)[ \t]*$", re.M)
# `COMMENT ON ... IS <literal>;` statements, the literal '...' or dollar-quoted $$...$$ (the
# store's files: no quote inside doubled)
COMMENT_RE = re.compile(r"COMMENT ON (TABLE|VIEW|COLUMN) ([\w.]+) IS\s+('(?:[^']|'')*'|\$\$.*?\$\$)\s*;",
                        re.S)


def comment_text(literal: str) -> str:
    """The text of a comment's literal (COMMENT_RE's third group)."""
    if literal.startswith("$$"):
        return literal[2:-2]
    return literal[1:-1].replace("''", "'")


def stored_views(texts: Sequence[str]) -> list[str]:
    """The views the texts declare stored, in order."""
    return [m.group(1) for text in texts if "@stored" in text
            for m in DIRECTIVE_RE.finditer(text)]


def ddl(view: str) -> str:
    """The stored table and the view of a stored figure (the directive's line written out)."""
    table = view + STORED_SUFFIX
    return (f"-- stored figure {view}, written out from its directive (mathprobe/store/stored_sql.py)\n"
            f"CREATE TABLE IF NOT EXISTS {table} AS FROM {view}_of('run_data') WITH NO DATA;\n"
            f"CREATE OR REPLACE VIEW {view} AS\n"
            f"FROM {table}\n"
            f"WHERE run_id IN (SELECT run_id FROM stored_runs)\n"
            f"UNION ALL\n"
            f"FROM {view}_of('live_run_spans');")


def table_comment(view: str) -> str:
    """The stored table's comment: the same sentence for every stored figure."""
    return (f"COMMENT ON TABLE {view}{STORED_SUFFIX} IS 'The rows of {view} stored per run when "
            f"the run''s grading, judging, import or probe finished (mathprobe/store/run_data.py); "
            f"{view} reads them only while the run''s data version is the stored one "
            f"(stored_runs), and computes the other runs live.';")


def expand(texts: Sequence[str]) -> list[str]:
    """The texts with every `-- @stored <view>` line written out (see the module's docstring);
    texts without one are returned as they are."""
    home = {view: i for i, text in enumerate(texts) for view in stored_views([text])}
    if not home:
        return list(texts)
    columns: dict[str, list[str]] = {view: [] for view in home}
    for i, text in enumerate(texts):
        if not any(view in text for view in home):
            continue                     # (most texts: no stored view's comment to read)
        for m in COMMENT_RE.finditer(text):
            kind, name, literal = m.groups()
            view, _, column = name.partition(".")
            if view not in home or kind == "TABLE":
                continue
            home[view] = max(home[view], i)
            if kind == "COLUMN":
                columns[view].append(f"COMMENT ON COLUMN {view}{STORED_SUFFIX}.{column} "
                                     f"IS {literal};")
    out = [DIRECTIVE_RE.sub(lambda m: ddl(m.group(1)), text) if "@stored" in text else text
           for text in texts]
    for view, i in home.items():
        out[i] += "\n\n" + "\n".join([table_comment(view), *columns[view]]) + "\n"
    return out
