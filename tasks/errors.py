"""Errors a user can act on: each names the file, the row and the field at fault."""
from __future__ import annotations

from pathlib import Path


class MathprobeError(Exception):
    """An error meant for the user, printed without a traceback by the command line."""


class DataError(MathprobeError):
    """Malformed benchmark or response data."""

    def __init__(self, file: str | Path, message: str, *, row: int | None = None,
                 field: str | None = None, item: str | None = None):
        self.file, self.row, self.field, self.item = str(file), row, field, item
        where = [self.file]
        if row is not None:
            where.append(f"row {row}" + (f" ({item})" if item else ""))
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(": ".join(where) + ": " + message)
