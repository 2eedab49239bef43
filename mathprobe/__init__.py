"""mathprobe: concept-wise math benchmark evaluation (WE-MATH, ConceptMath, CMMaTH).

One import root. The checkout keeps its folders where the design puts them and they install
under this name: `mathprobe.flows` (flows/, the Prefect flows), `mathprobe.tasks` (tasks/,
everything the flows call), and the package data `mathprobe.sql` (sql/),
`mathprobe.triton_models` (triton_models/) and `mathprobe.deploy` (deploy/). This folder holds
the command line, `mathprobe.cli` (one module per command), and the warm runner with the local
Prefect server it serves with, `mathprobe.warm`. Nothing else lands at the top of
site-packages, so a user's own `tasks.py` or `flows/` never collides with ours.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mathprobe")
except PackageNotFoundError:          # a source tree that was never installed
    __version__ = "0+unknown"
