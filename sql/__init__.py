"""The store's SQL (package data): schema.sql, core/, then one folder per benchmark.

A package only so that `importlib.resources` finds these files in a wheel install as in the
checkout (mathprobe.paths)."""
