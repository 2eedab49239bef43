"""The CMMaTH plots of the HTML report: visual subjects, grade groups and the SSR@alpha curve,
each value with its interval (drawn by tasks.reports.plots)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tasks.benchmarks.cmmath._report import GRADE_GROUPS
from tasks.contract import Plot


def plots(figures: Mapping[str, Mapping[str, Any]], curve: tuple[float, ...]) -> list[Plot]:
    keys = {k for f in figures.values() for k in f}
    subjects = sorted(k for k in keys if k.startswith("subject:"))
    out = []
    if subjects:
        out.append(Plot("cmmath-subjects", "Accuracy by visual subject", "bars",
                        tuple((k.split(":", 1)[1], k) for k in subjects), ylabel="accuracy"))
    grades = [(label, f"grade:{g}") for g, label in GRADE_GROUPS.items() if f"grade:{g}" in keys]
    if grades:
        out.append(Plot("cmmath-grades", "Accuracy by grade group", "bars", tuple(grades),
                        ylabel="accuracy"))
    points = tuple((f"{a:g}", f"ssr@{a:g}") for a in curve if f"ssr@{a:g}" in keys)
    if points:
        out.append(Plot("cmmath-ssr", "SSR@alpha: share of knowledge points with accuracy "
                        "above alpha", "curve", points, xs=tuple(float(a) for a, _ in points),
                        xlabel="alpha", ylabel="SSR"))
    return out
