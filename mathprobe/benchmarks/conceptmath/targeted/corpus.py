"""A corpus read as a stream: JSON lines or Parquet, local files, globs, or any URL DuckDB reads
(http(s)://, s3://, ...: its httpfs extension, the `lake` extra), in batches, never whole.

DuckDB reads each file (`read_json` / `read_parquet`) and hands rows over `batch` at a time
(`fetchmany`): memory holds one batch and DuckDB's own buffers, whatever the corpus's size. The
text field (and the id field, if named) are checked in each file's schema before its rows are
read, and each row as it comes: a row whose text is missing or not a string is a one-line error
naming the file, the row (1-based, in file order) and the field. A document's id is its id field
when there is one, else `<file name>:<row>`. `Corpus.fingerprint` is a content hash of every
(file, id, text) read, for the selection's record: the same corpus gives the same hash.
A JSON line may hold up to DuckDB's default 16 MB (its reader's buffers are sized by that
maximum: 256 MB took 700 MB of memory); a longer one is an error naming the file."""
from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from mathprobe.errors import MathprobeError
from mathprobe.store.errors import offline_connect
from mathprobe.store.one_row import one_row

BATCH = 2000
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz",
                 ".jsonl.zst", ".json.zst")
PARQUET_SUFFIXES = (".parquet",)


@dataclass(frozen=True)
class Doc:
    id: str
    text: str
    file: str
    row: int


def is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def kind_of(path: str, flag: str = "--corpus") -> str:
    name = path.lower().split("?")[0]
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(JSON_SUFFIXES):
        return "json"
    raise MathprobeError(f"{flag} {path}: not a JSON lines or Parquet file by its name "
                         f"(.jsonl, .json, .parquet, optionally .gz / .zst)")


def expand(paths: Sequence[str], flag: str = "--corpus") -> list[str]:
    """The files named: local globs expanded (in name order), URLs as given (DuckDB expands
    their globs); each must exist and be JSON lines or Parquet by its name."""
    out: list[str] = []
    for p in paths:
        if is_url(p):
            kind_of(p, flag)
            out.append(p)
            continue
        p = os.path.expanduser(p.removeprefix("file://"))
        found = sorted(glob.glob(p)) if glob.has_magic(p) else ([p] if Path(p).exists() else [])
        found = [f for f in found if Path(f).is_file()]
        if not found:
            raise MathprobeError(f"{flag} {p}: no such file" + (" (the pattern matches none)"
                                                                if glob.has_magic(p) else ""))
        for f in found:
            kind_of(f, flag)
        out += found
    return out


@dataclass
class Corpus:
    """The files of a corpus and the fields to read; iterate `batches()`."""
    files: list[str]
    text_field: str = "text"
    id_field: str | None = None
    batch: int = BATCH
    rows_read: int = 0
    _hash: object = field(default_factory=lambda: hashlib.blake2b(digest_size=16))

    @property
    def fingerprint(self) -> str:
        return self._hash.hexdigest()           # type: ignore[attr-defined]

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = offline_connect()
        con.execute("SET enable_progress_bar = false")      # ours is on the terminal
        if any(is_url(f) for f in self.files):
            from mathprobe.store.lake import load_extension

            load_extension(con, "httpfs")
        return con

    def _source(self, f: str) -> str:
        if kind_of(f) == "parquet":
            return "read_parquet(?)"
        return "read_json(?, format = 'newline_delimited')"

    def _columns(self, con: duckdb.DuckDBPyConnection, f: str) -> dict[str, str]:
        """Field -> its DuckDB type, as DuckDB reads the file."""
        try:
            return {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {self._source(f)}",
                                                    [f]).fetchall()}
        except duckdb.Error as exc:
            raise MathprobeError(f"--corpus {f}: cannot read it ({_first_line(exc)})") from None

    def estimate(self) -> int | None:
        """How many documents, where it is cheap to know (Parquet metadata, local JSON lines
        counted at disk speed); None where it is not (a URL of JSON lines)."""
        total = 0
        con = self._connect()
        try:
            for f in self.files:
                if kind_of(f) == "parquet":
                    total += one_row(con, "SELECT sum(num_rows) FROM parquet_file_metadata(?)",
                                     [f])[0] or 0
                elif is_url(f) or f.endswith((".gz", ".zst")):
                    return None
                else:
                    total += _count_lines(f)
        except duckdb.Error:
            return None
        finally:
            con.close()
        return total

    def batches(self) -> Iterator[list[Doc]]:
        """The documents, `batch` at a time, file after file, each file in its row order."""
        con = self._connect()
        try:
            for f in self.files:
                yield from self._file_batches(con, f)
        finally:
            con.close()

    def check(self) -> None:
        """Every file readable and holding the fields named (its schema, before any row is
        read): a one-line error otherwise."""
        con = self._connect()
        try:
            for f in self.files:
                self._fields(con, f)
        finally:
            con.close()

    def _fields(self, con: duckdb.DuckDBPyConnection, f: str) -> dict[str, str]:
        columns = self._columns(con, f)
        for flag, name in (("--text-field", self.text_field), ("--id-field", self.id_field)):
            if name is not None and name not in columns:
                raise MathprobeError(f"--corpus {f}: no field {name!r} ({flag}); its fields: "
                                     + ", ".join(list(columns)[:20]))
        return columns

    def _file_batches(self, con: duckdb.DuckDBPyConnection, f: str) -> Iterator[list[Doc]]:
        columns = self._fields(con, f)
        text = _quote(self.text_field)
        ident = f"CAST({_quote(self.id_field)} AS VARCHAR)" if self.id_field else "NULL"
        # a text that is not a string is an error, never silently cast; a field whose rows hold
        # several types is read as JSON, each row's type told by json_type
        if columns[self.text_field] == "JSON":
            value, kind = f"{text}->>'$'", f"json_type({text})"
        else:
            value, kind = f"{text}::VARCHAR", f"typeof({text})"
        cur = con.execute(f"SELECT {value}, {kind}, {ident} FROM {self._source(f)}", [f])
        name, row = Path(f).name if not is_url(f) else f, 0
        while True:
            try:
                rows = cur.fetchmany(self.batch)
            except duckdb.Error as exc:
                raise MathprobeError(f"--corpus {f}: cannot read it after row {row} "
                                     f"({_first_line(exc)})") from None
            if not rows:
                return
            out = []
            for value, kind, ident_value in rows:
                row += 1
                if value is None or kind not in ("VARCHAR", "NULL"):
                    raise MathprobeError(
                        f"--corpus {f}: row {row}, field {self.text_field!r}: "
                        + (f"not a string ({kind})" if kind not in ("VARCHAR", "NULL", None)
                           else "missing (null)"))
                doc_id = ident_value if ident_value is not None else f"{name}:{row}"
                self._hash.update(f"{name}\x1f{doc_id}\x1f{value}\x1e".encode())  # type: ignore
                out.append(Doc(doc_id, value, f, row))
            self.rows_read += len(out)
            yield out


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n")[0].split())


def _count_lines(path: str) -> int:
    n = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            n += chunk.count(b"\n")
    return n
