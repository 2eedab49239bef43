"""Reports of stored runs: the common run summary and each benchmark's paper-style tables
(`summary`), and the formatting the benchmarks' reports share (`format`)."""
from tasks.reports.format import pct
from tasks.reports.summary import artifact_rows, build, print_report, render

__all__ = ["artifact_rows", "build", "pct", "print_report", "render"]
