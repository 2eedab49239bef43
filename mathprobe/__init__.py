"""mathprobe: concept-wise math benchmark evaluation (WE-MATH, ConceptMath, CMMaTH).

One import root, in a plain folder every tool follows. This folder holds the library
(`benchmarks`, `backends`, `store`, `runs`, `reports`, `serving`, and the contract and registry
they share), the command line (`cli`, one module per command) and the warm runner (`warm`).
The design's other top-level folders are linked in: `mathprobe.flows` is flows/ (the Prefect
flows), `mathprobe.tasks` is tasks/ (the Prefect tasks they call), and `mathprobe.sql`,
`mathprobe.triton_models` and `mathprobe.deploy` are package data. Nothing else lands at the top
of site-packages, so a user's own `tasks.py` or `flows/` never collides with ours.
"""


def __getattr__(name: str) -> str:
    # looked up when asked for: reading the installed metadata takes 0.1-0.25 s, and every
    # `mathprobe` command imports this package first (the warm runner's launcher included)
    if name != "__version__":
        raise AttributeError(f"module 'mathprobe' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mathprobe")
    except PackageNotFoundError:      # a source tree that was never installed
        return "0+unknown"
