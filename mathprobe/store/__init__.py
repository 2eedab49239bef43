"""The store: raw responses in (append-only, through one writer), SQL views out.

`open_store(path)` gives the process's one `Store` per database file; `RunSpec` names what a run
is; `ANSWERED` are the statuses that carry an answer to grade.
"""
from mathprobe.store.duckdb_store import (
                                                ANSWERED,
                                                ANSWERED_SQL,
                                                RunSpec,
                                                Store,
                                                close_all,
                                                open_store,
)
from mathprobe.store.writer import ResponseWriter

__all__ = ["ANSWERED", "ANSWERED_SQL", "ResponseWriter", "RunSpec", "Store", "close_all",
           "open_store"]
