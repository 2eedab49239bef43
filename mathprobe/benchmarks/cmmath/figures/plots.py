"""The CMMaTH plots of the HTML report: visual subjects, grade groups and the SSR@alpha curve of
the paper, and the authors' SSR curve, each value with its interval (drawn by
mathprobe.reports.plots)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathprobe.figures import Plot


def plots(figures: Mapping[str, Mapping[str, Any]], curve: tuple[float, ...],
          official_curve: tuple[float, ...], grade_groups: Mapping[int, str]) -> list[Plot]:
    keys = {k for f in figures.values() for k in f}
    subjects = sorted(k for k in keys if k.startswith("subject:"))
    out = []
    if subjects:
        out.append(Plot("cmmath-subjects", "Accuracy by visual subject (paper)", "bars",
                        tuple((k.split(":", 1)[1], k) for k in subjects), ylabel="accuracy"))
    grades = [(label, f"grade:{g}") for g, label in grade_groups.items() if f"grade:{g}" in keys]
    if grades:
        out.append(Plot("cmmath-grades", "Accuracy by grade group (paper)", "bars", tuple(grades),
                        ylabel="accuracy"))
    for key, prefix, alphas, title in (
            ("cmmath-ssr", "ssr@", curve, "SSR@alpha (paper): share of leaf knowledge points "
                                          "with accuracy above alpha"),
            ("cmmath-official-ssr", "official_ssr@", official_curve,
             "The authors' SSR@alpha: share of points with right / (count + 1) above alpha")):
        points = tuple((f"{a:g}", f"{prefix}{a:g}") for a in alphas if f"{prefix}{a:g}" in keys)
        if points:
            out.append(Plot(key, title, "curve", points, xs=tuple(float(a) for a, _ in points),
                            xlabel="alpha", ylabel="SSR"))
    return out
