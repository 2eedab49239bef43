"""DuckDB's errors as the user should see them: one line saying what is wrong with the store
file and what to do (another process writing it, a disk that refuses a write)."""
from __future__ import annotations

import re
from pathlib import Path

import duckdb

from mathprobe import process_names
from mathprobe.errors import MathprobeError, StoreWriteError

# Every connection: DuckDB never reaches the internet for an extension. By default a file it
# does not know (a SQLite database given as --db) made it try to download one; the extensions
# mathprobe uses are loaded from their PyPI packages (mathprobe.store.lake.load_extension).
OFFLINE = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def offline_connect(database: str = ":memory:", read_only: bool = False
                    ) -> duckdb.DuckDBPyConnection:
    """duckdb.connect, never installing or loading an extension by itself."""
    return duckdb.connect(database, read_only=read_only, config=dict(OFFLINE))


def not_duckdb(path: str) -> str | None:
    """What the file is when it exists and is not a DuckDB database (its header lacks DuckDB's
    magic bytes), else None."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return None
    if not head or head[8:12] == b"DUCK":          # DuckDB's magic bytes
        return None
    return "a SQLite database" if head.startswith(b"SQLite format 3") else "some other file"


def connect(path: str, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection, or a MathprobeError saying in one line why not (another process
    is writing the file, named as its user knows it: the command a warm runner's copy runs,
    mathprobe.process_names; a read-only or full disk; not a DuckDB file). The copy of a killed
    command holds the file until it has stopped (about a second): that is waited for."""
    other = not_duckdb(path) if path != ":memory:" and Path(path).is_file() else None
    if other:
        raise MathprobeError(f"{path}: not a DuckDB file ({other}); name a DuckDB store file, "
                             "or a new file to create one")
    waited = False
    while True:
        try:
            return offline_connect(path, read_only=read_only)
        except duckdb.Error as exc:
            text = " ".join(str(exc).split())
            if "lock" not in text.lower():
                raise MathprobeError(f"{path}: cannot open the DuckDB file ({text})") from None
            pid = re.search(r"PID (\d+)", text)
            # the copy of a killed command is stopping (its answers stored): wait, then again
            if pid and not waited and process_names.wait_if_stopping(int(pid.group(1))):
                waited = True
                continue
            raise MathprobeError(
                f"{path} is open for writing in another process"
                f"{process_names.name(int(pid.group(1))) if pid else ''}: wait until it "
                "finishes (DuckDB admits one writer per file and no reader beside it)") from None


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
