"""The optional parts of mathprobe (pyproject's extras) and the one line that names the missing one.

`pip install mathprobe` runs API and baseline evaluations, stores (a DuckDB file, or a DuckLake
store catalogued in SQLite), reports, compares and deploys. A lake catalogued in PostgreSQL or
kept on an object store needs two more DuckDB extensions (`lake`); Triton-served models need the
gRPC client and, to serve them here, tritonserver, torch and transformers (`triton`); selecting
concept-specific training data from a corpus (`select-data`) needs scikit-learn and datasketch
(`select`). A command that reaches for
an absent part stops before it starts, saying which extra to install.
"""
from __future__ import annotations

import importlib.util

from mathprobe.errors import MathprobeError

# extra -> the modules it brings that mathprobe imports
EXTRAS = {
    "lake": ("duckdb_extension_postgres_scanner", "duckdb_extension_httpfs"),
    "triton": ("tritonclient", "pytriton", "torch", "transformers"),
    "select": ("sklearn", "datasketch"),
}


def missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):
        return True


def require(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Raise the one-line error naming `extra` if any of `modules` (default: all the extra
    brings) is not installed; `what` says what needed it."""
    absent = [m for m in (modules or EXTRAS[extra]) if missing(m)]
    if absent:
        raise MathprobeError(f"{what} needs the '{extra}' extra ({absent[0]} is not installed): "
                             f"pip install 'mathprobe[{extra}]'")
