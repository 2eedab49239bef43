"""Deployment files (package data): prefect.yaml, local.sh, postgres.sh and the Triton scripts.

A package only so that an installed mathprobe carries them (`mathprobe deploy` runs them from
here when there is no checkout; mathprobe.paths)."""
