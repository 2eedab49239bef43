"""Where the repository's own files are: the SQL layers and the Triton model repository."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SQL_DIR = REPO / "sql"
TRITON_MODELS = REPO / "triton_models"
