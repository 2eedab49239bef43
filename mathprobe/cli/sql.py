"""`mathprobe sql`: a query on the store, read-only (the duckdb CLI without installing it)."""
from __future__ import annotations

from typing import Annotated

import typer

from mathprobe.cli.common import ExistingDb, existing, reads
from mathprobe.errors import MathprobeError


def sql(
    query: Annotated[str, typer.Argument(help="SQL to run, e.g. 'FROM wemath_four_dimensional', "
                                         "or COPY (FROM view) TO 'file.csv' to export.")],
    db: ExistingDb,
) -> None:
    """Query the store read-only (the same as the duckdb CLI, without installing it)."""
    import duckdb

    from mathprobe.runs import output_paths
    from mathprobe.store.errors import connect
    from mathprobe.store.lake import connect as connect_lake
    loc = existing(db)
    output_paths.sql_outputs(query, reads(db))      # COPY ... TO the store would overwrite it
    if loc.is_lake:
        con = connect_lake(loc, read_only=True)
    else:
        con = connect(loc.target, read_only=True)   # another process writing it: one clear line
    try:
        rel = con.sql(query)
        if rel is not None:              # None: a statement with no result, e.g. COPY ... TO
            rel.show(max_width=10_000, max_rows=200)
    except duckdb.Error as exc:
        raise MathprobeError(f"query failed: {' '.join(str(exc).split())}") from None
    finally:
        con.close()
