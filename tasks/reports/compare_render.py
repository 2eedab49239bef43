"""How `mathprobe compare` shows a comparison: rich tables on the terminal (each cell the figure,
its 95% interval and n; differences from the baseline with their p-values, * where
significant), JSON (per run and figure: value, ci_low, ci_high, n) and a long-format CSV."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from mathprobe.tasks.contract import Stat, Table
from mathprobe.tasks.reports.compare import BenchComparison, ComparisonResult
from mathprobe.tasks.reports.format import fmt_diff, fmt_interval, fmt_p, fmt_value, is_percent


def to_json(result: ComparisonResult) -> dict[str, Any]:
    out: dict[str, Any] = {"resamples": result.resamples, "seed": result.seed,
                           "confidence": result.confidence, "runs": {}, "tables": [],
                           "differences": [], "sections": []}
    for b in result.benchmarks:
        labels = {s.key: (t.key, s.label) for t in b.tables for s in t.stats}
        for r in b.runs:
            out["runs"][r["run_id"]] = {
                "benchmark": b.benchmark, "model": r["model"], "setting": r["setting"],
                "grader": r["grader"],
                "figures": {k: {"table": labels[k][0], "label": labels[k][1], **e.as_dict()}
                            for k, e in b.figures.get(r["run_id"], {}).items() if k in labels}}
        for t in b.tables:
            entry = {"benchmark": b.benchmark, "key": t.key, "title": t.title, "rows": t.rows,
                     "figures": [s.key for s in t.stats],
                     "runs": [r["run_id"] for r in b.table_runs(t)]}
            if t.rows == "model":
                entry["models"] = [{"model": m.model, "runs": m.runs,
                                    "average": m.average.as_dict()}
                                   for m in b.model_rows.get(t.key, [])]
            out["tables"].append(entry)
        out["differences"] += [{"benchmark": b.benchmark, **d.as_dict()} for d in b.differences]
        out["sections"] += [{"benchmark": b.benchmark, "title": s.title, "columns": s.columns,
                             "rows": s.rows, "note": s.note} for s in b.sections]
        out.setdefault("graders", [])
        out["graders"] += [{"benchmark": b.benchmark,
                            "figure_key": b.headline.key if b.headline else None, **g.as_dict()}
                           for g in b.graders]
    return out


# The long table of figures and differences (`compare --csv`, `--parquet`): column -> DuckDB type.
COLUMNS = {"kind": "VARCHAR", "benchmark": "VARCHAR", "table": "VARCHAR", "figure": "VARCHAR",
           "label": "VARCHAR", "run_id": "VARCHAR", "model": "VARCHAR", "setting": "VARCHAR",
           "grader": "VARCHAR", "value": "DOUBLE", "ci_low": "DOUBLE", "ci_high": "DOUBLE",
           "n": "BIGINT", "count": "DOUBLE", "baseline": "VARCHAR", "test": "VARCHAR",
           "p_value": "DOUBLE", "significant": "BOOLEAN", "only_baseline": "BIGINT",
           "only_run": "BIGINT", "agreement": "DOUBLE", "kappa": "DOUBLE"}


def write_csv(result: ComparisonResult, path: Path) -> int:
    """One row per run and figure (kind 'figure'), then per difference (kind 'difference'),
    then per grader of a run with several (kind 'grader': its headline figure, and its
    agreement and kappa with the run's reported grader); the number of rows written."""
    rows = long_rows(result)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(COLUMNS), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return len(rows)


def write_parquet(result: ComparisonResult, path: Path) -> int:
    """The CSV's rows as a typed Parquet file (DuckDB's writer); the number of rows."""
    import duckdb

    rows = long_rows(result)
    # parallel lists turned into rows in one statement (column names such as "table" quoted)
    select = ", ".join(f'unnest($p{k}::{t}[]) AS "{c}"' for k, (c, t) in enumerate(COLUMNS.items()))
    params = {f"p{k}": [r.get(c) for r in rows] for k, c in enumerate(COLUMNS)}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    try:
        con.execute("CREATE TABLE figures (" + ", ".join(f'"{c}" {t}' for c, t in COLUMNS.items())
                    + ")")
        if rows:
            con.execute(f"INSERT INTO figures SELECT {select}", params)
        con.execute(f"COPY figures TO '{_sql_text(str(path))}' (FORMAT parquet)")
    finally:
        con.close()
    return len(rows)


def _sql_text(s: str) -> str:
    return s.replace("'", "''")


def long_rows(result: ComparisonResult) -> list[dict[str, Any]]:
    """Every figure of every run, then every difference, as flat rows (COLUMNS)."""
    rows = []
    for b in result.benchmarks:
        where = {s.key: (t.key, s.label) for t in b.tables for s in t.stats}
        for r in b.runs:
            for k, e in b.figures.get(r["run_id"], {}).items():
                if k in where:
                    rows.append({"kind": "figure", "benchmark": b.benchmark, "table": where[k][0],
                                 "figure": k, "label": where[k][1], "run_id": r["run_id"],
                                 "model": r["model"], "setting": r["setting"],
                                 "grader": r["grader"], **e.as_dict()})
        for d in b.differences:
            rows.append({"kind": "difference", "benchmark": b.benchmark,
                         "table": where[d.stat][0], "figure": d.stat, "label": where[d.stat][1],
                         "run_id": d.run_b, "baseline": d.run_a, "value": d.diff,
                         "ci_low": d.ci_low, "ci_high": d.ci_high, "n": d.n, "test": d.test,
                         "p_value": d.p_value, "significant": d.significant,
                         "only_baseline": d.only_a, "only_run": d.only_b})
        for g in b.graders:      # each grader of a run with several, beside the reported one
            a = g.agreement or {}
            rows.append({"kind": "grader", "benchmark": b.benchmark,
                         "figure": b.headline.key if b.headline else None,
                         "label": b.headline.label if b.headline else None, "run_id": g.run_id,
                         "grader": g.grader, **(g.figure.as_dict() if g.figure else {}),
                         "agreement": a.get("agreement"), "kappa": a.get("kappa")})
    return rows


def _cell(e, stat: Stat) -> Text:
    if e is None:
        return Text("-")
    count = f" ({e.count:.0f})" if e.count is not None and is_percent(stat.fmt) else ""
    return Text.assemble((fmt_value(e.value, stat.fmt) + count, "bold"), "\n",
                         (fmt_interval(e.ci_low, e.ci_high, stat.fmt, TERMINAL_DIGITS), "dim"),
                         "\n",
                         (f"n={e.n}", "dim"))


CELL_WIDTH = 13       # columns a figure cell needs: "[100.0, 100.0]" less a little, a space
TERMINAL_DIGITS = 1   # decimals of an interval on the terminal (JSON, CSV, HTML: all of them)


def _table(title: str, caption: str | None) -> RichTable:
    return RichTable(title=title, title_justify="left", caption=caption, caption_justify="left",
                     box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), pad_edge=False)


def _chunks(items: list, width: int, first: int) -> list[list]:
    """`items` in groups that fit `width` columns beside a first column of `first`."""
    per = max(1, (width - first) // CELL_WIDTH)
    return [items[i:i + per] for i in range(0, len(items), per)] or [[]]


def _run_tables(b: BenchComparison, t: Table, width: int) -> list[RichTable]:
    """Runs down, figures across; figures that do not fit the terminal continue in a second
    table below (never squeezed into unreadable columns)."""
    runs = b.table_runs(t)
    label_w = 12 if width < 120 else 24
    out = []
    chunks = _chunks(list(t.stats), width, label_w)
    for k, chunk in enumerate(chunks):
        last = k == len(chunks) - 1
        table = _table(t.title + (f" ({k + 1}/{len(chunks)})" if len(chunks) > 1 else ""),
                       (t.note or None) if last else None)
        table.add_column("run", max_width=label_w, overflow="fold")
        for s in chunk:
            table.add_column(s.label, justify="right", min_width=CELL_WIDTH - 1, no_wrap=True)
        for r in runs:
            f = b.figures.get(r["run_id"], {})
            table.add_row(Text.assemble(r["run_id"], "\n", (f"{r['model']} · {r['setting']}",
                                                              "dim")),
                          *(_cell(f.get(s.key), s) for s in chunk))
        out.append(table)
    return out


def _model_table(b: BenchComparison, t: Table) -> RichTable:
    """The paper's Table 2 read down: per model, a row per figure (system) with the settings
    across, then the model's average of all its cells."""
    rows = b.model_rows.get(t.key, [])
    settings = list(dict.fromkeys(s for m in rows for s in m.runs))
    table = _table(t.title, t.note or None)
    table.add_column("model")
    table.add_column("")
    for st in settings:
        table.add_column(st, justify="right")
    for m in rows:
        for k, s in enumerate(t.stats):
            table.add_row(m.model if k == 0 else "", s.label,
                          *(_cell(b.figures.get(m.runs[st], {}).get(s.key) if st in m.runs
                                  else None, s) for st in settings))
        a = m.average
        table.add_row("", Text("Avg.", style="bold"),
                      Text.assemble((fmt_value(a.value), "bold"), "\n",
                                    (fmt_interval(a.ci_low, a.ci_high, "percent",
                                                  TERMINAL_DIGITS), "dim"), "\n",
                                    (f"{a.n} cell(s)", "dim")),
                      *([""] * (len(settings) - 1)), end_section=True)
    return table


def _differences(b: BenchComparison, width: int) -> list[RichTable]:
    stats_ = {s.key: s for t in b.tables if not t.detail and t.rows == "run" for s in t.stats}
    keys = [k for k in stats_ if any(d.stat == k for d in b.differences)]
    by = {(d.run_b, d.stat): d for d in b.differences}
    out = []
    chunks = _chunks(keys, width, 14)
    for n, chunk in enumerate(chunks if keys else []):
        out.append(_difference_table(b, chunk, stats_, by, n, len(chunks)))
    return out


def _difference_table(b, keys, stats_, by, n, of) -> RichTable:
    table = _table(f"{b.title}: differences from the baseline {b.baseline} (run − baseline, "
                   "points; * p < 0.05)" + (f" ({n + 1}/{of})" if of > 1 else ""),
                   "paired 95% interval over the units both runs have; p: exact McNemar (McN "
                   "k/l: items only the baseline / only the run got right) or the paired "
                   "bootstrap" if n == of - 1 else None)
    table.add_column("run", max_width=14, overflow="fold")
    for k in keys:
        table.add_column(stats_[k].label, justify="right")
    for r in b.runs[1:]:
        cells = []
        for k in keys:
            d = by.get((r["run_id"], k))
            if d is None:
                cells.append(Text("-"))
                continue
            test = f"McN {d.only_a}/{d.only_b}" if d.test == "mcnemar" else "bootstrap"
            cells.append(Text.assemble(
                (fmt_diff(d.diff, stats_[k].fmt) + ("*" if d.significant else ""),
                 "bold red" if d.significant else "bold"), "\n",
                (f"{fmt_interval(d.ci_low, d.ci_high, stats_[k].fmt, TERMINAL_DIGITS)}\n"
                 f"p={fmt_p(d.p_value)}\n"
                 f"{test}", "dim")))
        table.add_row(r["run_id"], *cells)
    return table


def _graders_table(b: BenchComparison) -> RichTable:
    """Each run's graders side by side: the headline figure under each, and each one's
    agreement with the grader the run is reported under (kappa; the answers where one says
    right and the other wrong)."""
    stat = b.headline
    table = _table(f"{b.title}: graders side by side (the same answers of each run)",
                   "agreement and kappa over the answers both graders decided, against the "
                   "run's reported grader (*); right/wrong: answers it calls right that the "
                   "reported grader calls wrong, and the other way round; the answers themselves: "
                   "mathprobe judge-audit --run RUN --graders A,B")
    for col in ("run", "grader", stat.label if stat else "figure", "decided", "agreement",
                "kappa", "right/wrong"):
        table.add_column(col, justify="left" if col in ("run", "grader") else "right")
    for g in b.graders:
        a = g.agreement
        cell = _cell(g.figure, stat) if g.figure is not None and stat is not None else Text("-")
        table.add_row(g.run_id, g.grader + (" *" if g.reported else ""), cell, str(g.n_graded),
                      "" if a is None else f"{a['agreement']:.1%} of {a['n_both']}",
                      "" if a is None or a["kappa"] is None else f"{a['kappa']:.3f}",
                      "" if a is None else f"{a['only_b_right']} / {a['only_a_right']}")
    return table


def render(result: ComparisonResult, width: int = 120) -> Group:
    parts: list[Any] = []
    for b in result.benchmarks:
        graders = sorted({r["grader"] for r in b.runs})
        parts.append(Text(f"\n{b.title}: {len(b.runs)} run(s), grader {', '.join(graders)}; "
                          f"95% bootstrap intervals ({result.resamples} resamples, seed "
                          f"{result.seed}); each cell: figure (count), [interval] n",
                          style="bold"))
        for t in b.tables:
            if t.detail or not b.table_runs(t):
                continue
            if t.rows == "model":
                parts.append(_model_table(b, t))
            else:
                parts += _run_tables(b, t, width)
        parts += _differences(b, width)
        if b.graders:
            parts.append(_graders_table(b))
        for s in b.sections:
            table = _table(s.title, s.note or None)
            for k, c in enumerate(s.columns):
                table.add_column(str(c), justify="left" if k == 0 else "right")
            for row in s.rows:
                table.add_row(*(str(v) for v in row))
            parts.append(table)
        detail = [t.title for t in b.tables if t.detail]
        if detail:
            parts.append(Text("Also in --json, --csv and the HTML report: " + "; ".join(detail),
                              style="dim"))
    return Group(*parts)
