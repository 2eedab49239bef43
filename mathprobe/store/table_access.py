"""What the table mixins (items, runs, answers, batches) use of `Store`, declared once so the
type checker sees it: `Store` (duckdb_store.py) defines each of these, the mixins only call them.
The declarations exist for the checker alone; at run time the class is empty."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb

if TYPE_CHECKING:
    from mathprobe.items import Completion

T = TypeVar("T")


class TableAccess:
    """The base of every table mixin of `Store`."""

    if TYPE_CHECKING:
        def write(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T: ...

        def query(self, sql: str, params: Any = None) -> list[tuple]: ...

        def query_dicts(self, sql: str, params: Any = None) -> list[dict[str, Any]]: ...

        def _new_response_ids(self, con: duckdb.DuckDBPyConnection, n: int) -> list[int]: ...

        def _append_new(self, con: duckdb.DuckDBPyConnection, run_id: str,
                        rows: list[tuple[str, str, Completion]]) -> int: ...
