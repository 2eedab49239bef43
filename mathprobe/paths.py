"""Where mathprobe's own files are: the SQL layers, the Triton model repository, the deployment
files. They are package data (`mathprobe.sql`, `mathprobe.triton_models`, `mathprobe.deploy`),
found through importlib.resources, so an editable checkout and a wheel install agree; both hold
them as plain folders on disk (tritonserver and the shell scripts need real paths)."""
from importlib.resources import files
from pathlib import Path


def _folder(package: str) -> Path:
    return Path(str(files(package)))


SQL_DIR = _folder("mathprobe.sql")
TRITON_MODELS = _folder("mathprobe.triton_models")
DEPLOY = _folder("mathprobe.deploy")
