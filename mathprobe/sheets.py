"""Tables other tools write (VLMEvalKit's predictions and judged files: xlsx, tsv, csv, or JSON
records), read row by row as text, so an importer sees each cell as the tool wrote it.

xlsx is read by DuckDB's `excel` extension (`read_xlsx`), loaded from its PyPI package
(`duckdb-extension-excel`, the same release as duckdb) and never installed from the internet;
tsv and csv by Python's csv module, which reads pandas' `QUOTE_ALL` output (VLMEvalKit's
`dump`) exactly, newlines inside quoted cells included. Rows are numbered as a spreadsheet
shows them: the header is row 1, the first record row 2 (JSON records: from 1).
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import duckdb

from mathprobe import extras
from mathprobe.errors import DataError, MathprobeError
from mathprobe.files import read_result_rows, read_text

SUFFIXES = (".xlsx", ".tsv", ".csv", ".json", ".jsonl")


def read_table(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row number, {column: value}) of every record row; an empty cell is None. A file of
    another kind, or one that cannot be read, is a DataError naming it."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return _xlsx(path)
    if suffix in (".tsv", ".csv"):
        return _delimited(path, "\t" if suffix == ".tsv" else ",")
    if suffix in (".json", ".jsonl"):
        return read_result_rows(path)
    raise DataError(path, f"cannot read a {suffix or 'suffix-less'} file here: expected one of "
                    f"{', '.join(SUFFIXES)}")


def _delimited(path: Path, delimiter: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.reader(read_text(path).splitlines(keepends=True), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise DataError(path, "empty file: expected a header row") from None
    out = []
    for n, cells in enumerate(reader, start=2):
        if not any(cells):
            continue
        if len(cells) != len(header):
            raise DataError(path, f"{len(cells)} cells, the header has {len(header)}", row=n)
        out.append((n, {h: (c if c != "" else None) for h, c in zip(header, cells)}))
    return out


def _xlsx(path: Path) -> list[tuple[int, dict[str, Any]]]:
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    try:
        load_excel(con)
        try:
            rel = con.execute("SELECT * FROM read_xlsx(?, header = true, all_varchar = true)",
                              [str(path)])
        except duckdb.Error as exc:
            raise DataError(path, f"cannot read the spreadsheet ({' '.join(str(exc).split())})"
                            ) from None
        names = [d[0] for d in rel.description]
        rows = rel.fetchall()
    finally:
        con.close()
    return [(n, dict(zip(names, row))) for n, row in enumerate(rows, start=2)
            if any(v is not None for v in row)]


def load_excel(con: duckdb.DuckDBPyConnection) -> None:
    """LOAD DuckDB's excel extension from its installed PyPI package (offline)."""
    from mathprobe.store.lake import extension_file

    found = extension_file("excel")
    if found is None:
        extras.require("xlsx", "reading .xlsx (DuckDB's excel extension)")
        raise MathprobeError(f"reading .xlsx needs DuckDB's excel extension for duckdb "
                             f"{duckdb.__version__}: pip install 'mathprobe[xlsx]' again")
    con.execute(f"LOAD '{found}'")
