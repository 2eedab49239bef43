"""The files a store is made of, so that no output path can overwrite one of them.

A store is more than its `--db` file: DuckDB keeps a write-ahead log (`FILE.wal`) and spills to
`FILE.tmp/`; a DuckLake store is its catalog (a SQLite file with its `-wal`, `-shm` and
`-journal`) plus a folder of Parquet files; and mathprobe keeps answers the store could not take
in `FILE.spool.jsonl` beside it. `mathprobe report --html smoke.duckdb` once wrote the report
over the store and every run in it was gone, so every command that writes a file checks it
against these first (mathprobe/runs/preflight.py: `output_file`, `output_dir`, `sql_outputs`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mathprobe.store.location import Location

DUCKDB_SIDECARS = {".wal": "write-ahead log", ".tmp": "temporary folder",
                   ".spool.jsonl": "spool of answers not yet stored"}
SQLITE_SIDECARS = {"-wal": "write-ahead log", "-shm": "shared-memory file",
                   "-journal": "journal", ".spool.jsonl": "spool of answers not yet stored"}


@dataclass(frozen=True)
class Owned:
    """A path a command reads and must not write: `what` names it in the error."""
    path: Path
    what: str
    folder: bool = False           # every path under it is owned too (a lake's data files)


def store_paths(loc: Location, data_path: str | None = None) -> list[Owned]:
    """The paths the store `loc` is made of (a lake's data folder where it is local and known:
    the one given, the one its catalog records, or a SQLite catalog's default)."""
    if loc.kind == "file":
        if loc.target == ":memory:":
            return []
        base = Path(loc.target)
        return [Owned(base, f"the store {base.name}"),
                *(Owned(Path(f"{base}{s}"), f"the store's {what}", folder=s == ".tmp")
                  for s, what in DUCKDB_SIDECARS.items())]
    owned: list[Owned] = []
    if loc.catalog == "sqlite":
        base = Path(loc.target)
        owned += [Owned(base, f"the lake's catalog {base.name}"),
                  *(Owned(Path(f"{base}{s}"), f"the lake catalog's {what}")
                    for s, what in SQLITE_SIDECARS.items())]
    recorded = _recorded_data_path(loc.target) if loc.catalog == "sqlite" else None
    default = loc.target + ".files/" if loc.catalog == "sqlite" else None
    for folder in dict.fromkeys(p for p in (data_path, loc.data_path, recorded, default) if p):
        if "://" not in folder or folder.startswith("file://"):
            owned.append(Owned(Path(folder.removeprefix("file://")), "the lake's data folder",
                               folder=True))
    return owned


def _recorded_data_path(catalog: str) -> str | None:
    """The data folder a SQLite catalog records (DuckLake's `ducklake_metadata`), read without
    DuckDB; None when there is no such catalog or it says none."""
    import sqlite3

    if not Path(catalog).is_file():
        return None
    try:
        with sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=5) as db:
            row = db.execute("SELECT value FROM ducklake_metadata WHERE key = 'data_path' "
                             "AND scope IS NULL").fetchone()
    except sqlite3.Error:
        return None
    if not row or not row[0]:
        return None
    folder = str(row[0])
    return folder if "://" in folder or Path(folder).is_absolute() else str(
        Path(catalog).parent / folder)


def input_paths(*paths: str | Path | None, what: str = "an input") -> list[Owned]:
    """Files or folders the command reads (a data folder, an imported file)."""
    return [Owned(Path(p), what, folder=Path(p).is_dir()) for p in paths if p]


def clash(path: str | Path, owned: list[Owned]) -> Owned | None:
    """The owned path that writing `path` would overwrite or write into, if any: the same path
    (after symbolic links), the same file by another name (a hard link, another mount), or a
    place under an owned folder."""
    target = _resolved(path)
    for o in owned:
        mine = _resolved(o.path)
        if target == mine or (o.folder and mine in target.parents):
            return o
        try:
            if target.exists() and o.path.exists() and os.path.samefile(target, o.path):
                return o
        except OSError:
            continue
    return None


def _resolved(path: str | Path) -> Path:
    return Path(os.path.abspath(Path(path).expanduser())).resolve()
