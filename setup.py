"""The package layout, which pyproject.toml cannot compute: one import root, `mathprobe`.

The checkout keeps the design's top-level folders; each installs under `mathprobe`:
flows/ -> mathprobe.flows, tasks/ -> mathprobe.tasks, and the package data sql/,
triton_models/ and deploy/ -> mathprobe.sql, mathprobe.triton_models, mathprobe.deploy.
The root package's own folder, mathprobe/, holds the command line (mathprobe.cli) and the warm
runner (mathprobe.warm).
Folders of data alone (sql/core/, the Triton models' 1/, the report's templates/) are
namespace packages to setuptools, so every folder is listed. Every other setting is in
pyproject.toml.
"""
from setuptools import find_namespace_packages, setup

FOLDERS = ("flows", "tasks", "sql", "triton_models", "deploy")
DATA = ["*.sql", "*.pbtxt", "*.j2", "*.toml", "*.yaml", "*.sh", "*.md", "*.json"]

setup(
    packages=[*find_namespace_packages(include=["mathprobe", "mathprobe.*"],
                                       exclude=["*__pycache__*"]),
              *(f"mathprobe.{p}" for p in find_namespace_packages(
        include=[f"{folder}{tail}" for folder in FOLDERS for tail in ("", ".*")],
        exclude=["*__pycache__*"]))],
    package_dir={"mathprobe": "mathprobe", **{f"mathprobe.{f}": f for f in FOLDERS}},
    package_data={"": DATA},
)
