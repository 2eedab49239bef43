"""Reports of stored runs: the common run summary and each benchmark's paper-style tables
(`summary`), the formatting the reports share (`format`); comparisons of runs with bootstrap
intervals and paired tests (`compare`, over `units` with `stats`, shown by `compare_render`),
the self-contained HTML report (`html`, `plots`, `glossary`) and the Markdown of the Prefect
artifact (`markdown`)."""
from mathprobe.reports.format import pct
from mathprobe.reports.summary import build, print_report, render

__all__ = ["build", "pct", "print_report", "render"]
