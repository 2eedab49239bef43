"""DuckDB's errors as the user should see them: one line saying what is wrong with the store
file and what to do (another process writing it, a disk that refuses a write)."""
from __future__ import annotations

import re

import duckdb

from mathprobe.tasks.errors import MathprobeError, StoreWriteError


def connect(path: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection, or a MathprobeError saying in one line why not (another process
    is writing the file, a read-only or full disk, not a DuckDB file)."""
    try:
        return duckdb.connect(path, read_only=read_only)
    except duckdb.Error as exc:
        text = " ".join(str(exc).split())
        if "lock" in text.lower():
            pid = re.search(r"PID (\d+)", text)
            raise MathprobeError(
                f"{path} is open for writing in another process"
                f"{f' (PID {pid.group(1)})' if pid else ''}: wait until it finishes (DuckDB "
                "admits one writer per file and no reader beside it)") from None
        raise MathprobeError(f"{path}: cannot open the DuckDB file ({text})") from None


def write_error(path: str, exc: duckdb.Error) -> Exception:
    """A failed commit as the user should see it: a StoreWriteError (one line, exit status 5)
    when the disk or the file refused the write, else the error itself."""
    reason = " ".join(str(exc).split())
    if not (isinstance(exc, duckdb.IOException) or "Could not write" in reason
            or "No space left" in reason or "Read-only file system" in reason):
        return exc
    reason = reason.split("Error: ", 1)[-1]
    error = StoreWriteError(f"writing to {path} failed ({reason}); nothing of this step was "
                            "stored: free space (or make the file writable) and run the same "
                            "command again")
    error.reason = reason
    return error
