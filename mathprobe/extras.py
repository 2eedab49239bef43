"""The optional parts of mathprobe (pyproject's extras) and the one line that names the missing one.

`pip install mathprobe` (the core, under 500 MB: perf/install_size.py) runs chance-baseline and
replayed evaluations into DuckDB file stores, and reports (terminal, JSON, Markdown, CSV),
compares, imports, judges and deploys. The model APIs need their SDK (`openai`: OpenAI and any
OpenAI-compatible server; `anthropic`); the HTML report its plots, thumbnails and CJK face
(`html`); DuckLake stores, several writers at once, DuckDB's lake extensions (`lake`);
VLMEvalKit's .xlsx files DuckDB's excel extension (`xlsx`); ConceptMath's ROUGE-L
contamination probe rouge-score (`rouge`); Triton-served models the gRPC client and, to serve
them here, tritonserver, torch and transformers (`triton`); selecting concept-specific training
data from a corpus (`select-data`) scikit-learn and datasketch (`select`). A command that
reaches for an absent part stops before it starts, saying which extra to install.
"""
from __future__ import annotations

import importlib.util

from mathprobe.errors import MathprobeError

# extra -> the modules it brings that mathprobe imports
EXTRAS = {
    "openai": ("openai", "aiohttp"),
    "anthropic": ("anthropic", "aiohttp"),
    "html": ("matplotlib", "PIL", "pylopdf_fonts_zh_cn"),
    "lake": ("duckdb_extension_ducklake", "duckdb_extension_sqlite_scanner",
             "duckdb_extension_postgres_scanner", "duckdb_extension_httpfs"),
    "xlsx": ("duckdb_extension_excel",),
    "rouge": ("rouge_score",),
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
