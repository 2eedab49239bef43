"""Prefect flows: eval, sweep and probes, and what they share (common, artifacts, and two patches
of Prefect: _prefect_engine, _temporary_server). Flows wire the Prefect tasks of tasks/; they
hold no benchmark logic, and never import the command line (mathprobe.cli)."""
