"""Where a store lives: a DuckDB file (the embedded default) or a DuckLake catalog.

`--db` takes either a path (`runs.duckdb`) or a DuckLake catalog:
  ducklake:sqlite:FILE                    several processes on one machine
  ducklake:postgres:dbname=... host=...   many machines (a PostgreSQL database)
The lake's Parquet files go under `--data-path DIR` (a local folder or an object store URL);
for a SQLite catalog the default is `FILE.files/` beside it. DuckLake remembers the data path in
the catalog, so it is only needed when the lake is created.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mathprobe.errors import MathprobeError

LAKE_PREFIX = "ducklake:"
CATALOGS = ("sqlite", "postgres")


@dataclass(frozen=True)
class Location:
    kind: str                       # 'file' or 'lake'
    target: str                     # the file's absolute path, or the catalog's connection string
    catalog: str | None = None      # 'sqlite' | 'postgres' for a lake
    data_path: str | None = None    # where a lake's Parquet files go (None: as the catalog says)

    @property
    def is_lake(self) -> bool:
        return self.kind == "lake"

    @property
    def key(self) -> str:
        """The identity of the store in this process (one `Store` per key)."""
        return self.target if self.kind == "file" else f"{LAKE_PREFIX}{self.catalog}:{self.target}"

    def __str__(self) -> str:
        return self.key

    def exists(self) -> bool:
        """Whether there is a store to read (a PostgreSQL catalog is assumed to exist)."""
        if self.kind == "file":
            return self.target == ":memory:" or Path(self.target).is_file()
        return self.catalog == "postgres" or Path(self.target).is_file()

    @property
    def lake_catalog(self) -> str:
        """A lake's catalog kind ('sqlite' | 'postgres'); a DuckDB file has none."""
        if self.catalog is None:
            raise ValueError(f"{self.target} is a DuckDB file, not a DuckLake catalog")
        return self.catalog

    def attach_sql(self, alias: str, read_only: bool = False) -> str:
        """The ATTACH statement of a lake (a data path only where one is given or needed)."""
        options = []
        data_path = self.data_path
        if data_path is None and self.catalog == "sqlite" and not Path(self.target).exists():
            data_path = self.target + ".files/"
        if data_path and not read_only:
            options.append(f"DATA_PATH {_quote(data_path)}")
        if read_only:
            options.append("READ_ONLY")
        opts = f" ({', '.join(options)})" if options else ""
        name = _quote(LAKE_PREFIX + self.lake_catalog + ':' + self.target)
        return f"ATTACH {name} AS {alias}{opts}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def parse(db: str | Path, data_path: str | Path | None = None) -> Location:
    """The store `--db` names (with `--data-path` for a lake); a clear error for a bad one."""
    text = str(db)
    if not text.startswith(LAKE_PREFIX):
        if data_path:
            raise MathprobeError(f"--data-path {data_path}: only a DuckLake store "
                                 f"(--db ducklake:...) has a data path; {text} is a DuckDB file")
        return Location("file", text if text == ":memory:" else str(Path(text).expanduser().resolve()))
    catalog, sep, target = text[len(LAKE_PREFIX):].partition(":")
    if catalog not in CATALOGS or not sep or not target.strip():
        raise MathprobeError(f"--db {text!r}: a DuckLake store is ducklake:sqlite:FILE or "
                             "ducklake:postgres:dbname=NAME host=HOST ...")
    if catalog == "sqlite":
        target = str(Path(target).expanduser().resolve())
    dp = None
    if data_path:
        dp = str(data_path)
        if "://" not in dp:
            dp = str(Path(dp).expanduser().resolve())
        dp = dp.rstrip("/") + "/"
    return Location("lake", target, catalog, dp)
