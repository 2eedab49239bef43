"""New store files start as a copy of an empty store, built once per version of the SQL layer.

Applying the store's SQL (tables, every view of every benchmark, their comments) to a new
DuckDB file takes 0.5-0.9 s on this machine, and `mathprobe run --db NEW.duckdb` waits for it
before its first request; copying a 1 MB file takes a millisecond. So a new file is a copy of
a template: an empty store made by the very same code (`Store._apply_sql`) and kept in the
user's cache folder, $MATHPROBE_CACHE_DIR or $XDG_CACHE_HOME/mathprobe (~/.cache/mathprobe),
under `store-templates/`. PostgreSQL's CREATE DATABASE copies its template1 the same way.

A template is used only when it is this very store: its name carries the content hash of the
SQL files (`mathprobe.store.sql.sql_layer`, plug-in benchmarks included), of the code that applies
them, and the DuckDB version that wrote it, so a change to any view, comment or table, to how
they are applied, or a DuckDB upgrade, builds a new one
(the old ones are left for `rm`; a few MB at most). The copy also carries that hash in
`store_meta`, so opening it applies nothing, and a file from any other version is brought up
to date by applying the SQL. Only new plain files use it: a DuckLake store, a file that already exists,
`:memory:` never do. Anything that goes wrong (no cache folder, a full disk) falls back to
applying the SQL to the new file: a template only saves time, so it never stops a store.

Template and copy are each written under a temporary name and put in place atomically; the
copy is put in place only if no file of that name appeared meanwhile (`os.link`), so a store
another process created in the meantime is never overwritten.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import duckdb

from mathprobe.store.errors import offline_connect

DUCKDB_MAGIC = b"DUCK"          # at offset 8 of every DuckDB database file


def cache_dir() -> Path:
    from mathprobe import settings

    root = settings.get("MATHPROBE_CACHE_DIR")
    if root is not None:
        return root
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mathprobe"


# the code that applies the SQL: a change to it builds a new template too
BUILDERS = [Path(__file__).with_name(n) for n in ("duckdb_store.py", "sql.py", "sql_order.py",
                                                  "stored_sql.py", "template.py", "run_data.py")]


def template_path(digest: str) -> Path:
    """Where the template of the SQL layer with hash `digest` lives: the hash of the SQL, of
    the code applying it, and the DuckDB version (a newer one may write another storage
    format) in its name."""
    h = hashlib.sha256(digest.encode())
    for f in BUILDERS:
        h.update(f.read_bytes())
    return cache_dir() / "store-templates" / f"{h.hexdigest()[:24]}-duckdb{duckdb.__version__}.duckdb"


def build(path: Path, apply_sql) -> None:
    """A new empty store at `path`, made by `apply_sql(con)` (the store's own SQL applier) and
    closed (checkpointed: one self-contained file, no WAL)."""
    con = offline_connect(str(path))
    try:
        apply_sql(con)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _usable(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(12)[8:12] == DUCKDB_MAGIC
    except OSError:
        return False


def template(digest: str, apply_sql) -> Path:
    """The template for `digest`, built now if there is none."""
    path = template_path(digest)
    if _usable(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".building-", suffix=".duckdb")
    os.close(fd)
    os.unlink(tmp)                     # DuckDB creates the file itself
    try:
        build(Path(tmp), apply_sql)
        os.replace(tmp, path)          # two processes building at once: either one wins
    finally:
        for leftover in (tmp, tmp + ".wal"):
            if os.path.exists(leftover):
                os.unlink(leftover)
    return path


def create(path: str | Path, digest: str, apply_sql) -> bool:
    """Make the new store file `path` a copy of the template for `digest`; False (and nothing
    written) when that cannot be done, or `path` exists: the caller then creates it as
    before."""
    path = Path(path)
    if path.exists() or Path(f"{path}.wal").exists():
        return False
    tmp = None
    try:
        source = template(digest, apply_sql)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out)
            out.flush()
            os.fsync(out.fileno())     # a crash right after must not leave a torn store
        os.link(tmp, path)             # fails if a file of that name appeared meanwhile
        return True
    except (OSError, duckdb.Error):
        return False
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
