"""The store's SQL (package data): core/, then one folder per benchmark; one object to a file,
named after it (mathprobe/store/sql.py, docs/store.md).

A package only so that `importlib.resources` finds these files in a wheel install as in the
checkout (mathprobe.paths)."""
