"""How `mathprobe compare` shows a comparison: rich tables on the terminal, JSON (per run and
figure: value, ci_low, ci_high, n, ci_method; differences with p_value, p_adjusted, better,
improved) and a long-format CSV.

On the terminal, readable at 80 columns: the runs are listed once (a legend: key, run id, model,
setting, grader), and tables name them by run id where every id fits the label column, else by
a letter (A = the baseline); each figure cell is the figure (count), its interval and n, the
columns as wide as their cells (a long heading wraps), and figures that do not fit continue in a
second table. Differences from the baseline are one row per figure and run, a table per source
table (so the strict and loose rule are named), coloured by whether the change is better or
worse for that figure (each benchmark's own: lower IK is better on WE-MATH): green better, red
worse, bold where significant."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Group, JustifyMethod
from rich.table import Table as RichTable
from rich.text import Text

from mathprobe.contract import Stat, Table
from mathprobe.reports import error_render, stats
from mathprobe.reports import format as formats
from mathprobe.reports.compare import BenchComparison, ComparisonResult, Difference
from mathprobe.reports.format import fmt_diff, fmt_interval, fmt_p, fmt_value, is_percent


def to_json(result: ComparisonResult) -> dict[str, Any]:
    out: dict[str, Any] = {"resamples": result.resamples, "seed": result.seed,
                           "confidence": result.confidence, "runs": {}, "tables": [],
                           "differences": [], "sections": [], "rankings": []}
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
                     "runs": [r["run_id"] for r in b.runs_of[t.key]]}
            if t.rows == "model":
                entry["models"] = [{"model": m.model, "runs": m.runs,
                                    "average": m.average.as_dict()}
                                   for m in b.model_rows.get(t.key, [])]
            out["tables"].append(entry)
        out["differences"] += [{"benchmark": b.benchmark, **d.as_dict()} for d in b.differences]
        out["sections"] += [{"benchmark": b.benchmark, "title": s.title, "columns": s.columns,
                             "rows": s.rows, "note": s.note} for s in b.sections]
        if b.errors:
            out.setdefault("errors", []).append(b.errors)
        out["rankings"] += [{"benchmark": b.benchmark, **k.as_dict()} for k in b.rankings]
        out.setdefault("graders", [])
        out["graders"] += [{"benchmark": b.benchmark,
                            "figure_key": b.headline.key if b.headline else None, **g.as_dict()}
                           for g in b.graders]
    return out


# The long table of figures and differences (`compare --csv`, `--parquet`): column -> DuckDB type.
COLUMNS = {"kind": "VARCHAR", "benchmark": "VARCHAR", "table": "VARCHAR", "figure": "VARCHAR",
           "label": "VARCHAR", "run_id": "VARCHAR", "model": "VARCHAR", "setting": "VARCHAR",
           "grader": "VARCHAR", "value": "DOUBLE", "ci_low": "DOUBLE", "ci_high": "DOUBLE",
           "n": "BIGINT", "count": "DOUBLE", "ci_method": "VARCHAR", "baseline": "VARCHAR",
           "test": "VARCHAR", "p_value": "DOUBLE", "p_adjusted": "DOUBLE", "family": "VARCHAR",
           "family_size": "BIGINT", "significant": "BOOLEAN", "better": "VARCHAR",
           "improved": "BOOLEAN", "only_baseline": "BIGINT", "only_run": "BIGINT",
           "agreement": "DOUBLE", "kappa": "DOUBLE"}


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
                         "ci_low": d.ci_low, "ci_high": d.ci_high, "n": d.n,
                         "ci_method": d.ci_method, "test": d.test, "p_value": d.p_value,
                         "p_adjusted": d.p_adjusted, "family": d.family,
                         "family_size": d.family_size, "significant": d.significant,
                         "better": d.better, "improved": d.improved,
                         "only_baseline": d.only_a, "only_run": d.only_b})
        for g in b.graders:      # each grader of a run with several, beside the reported one
            a = g.agreement or {}
            rows.append({"kind": "grader", "benchmark": b.benchmark,
                         "figure": b.headline.key if b.headline else None,
                         "label": b.headline.label if b.headline else None, "run_id": g.run_id,
                         "grader": g.grader, **(g.figure.as_dict() if g.figure else {}),
                         "agreement": a.get("agreement"), "kappa": a.get("kappa")})
        rows += error_render.long_rows(b.errors, {r["run_id"]: r for r in b.runs})
    return rows


TERMINAL_DIGITS = 1   # decimals of an interval on the terminal (JSON, CSV, HTML: all of them)
HEADING_WORD = 16     # a column heading wraps at words; a longer word is folded at this width


def _cell(e, stat: Stat) -> Text:
    if e is None:
        return Text("-")
    count = f" ({e.count:.0f})" if e.count is not None and is_percent(stat.fmt) else ""
    return Text.assemble((fmt_value(e.value, stat.fmt) + count, "bold"), "\n",
                         (fmt_interval(e.ci_low, e.ci_high, stat.fmt, TERMINAL_DIGITS), "dim"),
                         "\n",
                         (f"n={e.n}", "dim"))


def _table(title: str | None, caption: str | None, width: int | None = None) -> RichTable:
    """A table in the report's style; with `width`, at least as wide as its title (up to
    `width`), so a narrow table's title is not wrapped into a column of fragments."""
    return RichTable(title=title, title_justify="left", caption=caption, caption_justify="left",
                     box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), pad_edge=False,
                     min_width=min(len(title), width) if width and title else None)


def run_labels(b: BenchComparison, width: int) -> dict[str, str]:
    """run id -> how tables name it: the run id where every id fits the label column, else a
    letter (A, B, ..., then A1, B1, ...; A is the baseline)."""
    ids = [r["run_id"] for r in b.runs]
    if all(len(i) <= _label_width(width) for i in ids):
        return {i: i for i in ids}
    return {i: chr(ord("A") + k % 26) + (str(k // 26) if k >= 26 else "")
            for k, i in enumerate(ids)}


def _label_width(width: int) -> int:
    """The widest run id tables show as is: at 80 columns a label of 8 leaves room for five
    figure columns (an interval '[54.6, 63.0]' is 12 wide)."""
    return 8 if width < 120 else 24


def _legend(b: BenchComparison, labels: dict[str, str], width: int) -> RichTable:
    """The runs once, with what the tables call them."""
    table = _table(f"{b.title}: runs (the first is the baseline of the differences)", None,
                   width)
    keyed = any(k != i for i, k in labels.items())
    if keyed:
        table.add_column("key", no_wrap=True)
    for col in ("run", "model", "setting", "grader"):
        table.add_column(col, overflow="fold")
    for r in b.runs:
        table.add_row(*([labels[r["run_id"]]] if keyed else []), r["run_id"], str(r["model"]),
                      str(r["setting"]), str(r["grader"]))
    return table


def _column_width(b: BenchComparison, stat: Stat, runs: list[dict[str, Any]]) -> int:
    """As wide as the widest line of its cells, or of its heading's longest word (capped)."""
    lines = [len(line) for r in runs for line in
             _cell(b.figures.get(r["run_id"], {}).get(stat.key), stat).plain.split("\n")]
    word = max((len(w) for w in stat.label.split()), default=1)
    return max([*lines, min(word, HEADING_WORD), 1])


def _chunks(widths: list[int], width: int, first: int) -> list[list[int]]:
    """Column indexes in groups that fit `width` beside a first column of `first`: a table
    (`_table`) takes an edge on each side, and each further column its width, its left padding
    and a divider; at least one column per group."""
    out: list[list[int]] = [[]]
    used = first + 2
    for k, w in enumerate(widths):
        if out[-1] and used + w + 2 > width:
            out.append([])
            used = first + 2
        out[-1].append(k)
        used += w + 2
    return out


def _run_tables(b: BenchComparison, t: Table, width: int, labels: dict[str, str]
                ) -> list[Any]:
    """Runs down, figures across; figures that do not fit the terminal continue in a second
    table below (never squeezed into unreadable columns)."""
    runs = b.runs_of[t.key]
    label_w = max(3, max(len(labels[r["run_id"]]) for r in runs))
    widths = [_column_width(b, s, runs) for s in t.stats]
    chunks = _chunks(widths, width, label_w)
    out: list[Text | RichTable] = []
    for k, chunk in enumerate(chunks):
        last = k == len(chunks) - 1
        # the title above the table, not in it: a narrow table would wrap it into fragments
        out.append(Text(t.title + (f" ({k + 1}/{len(chunks)})" if len(chunks) > 1 else ""),
                        style="italic"))
        table = _table(None, None)
        table.add_column("run", no_wrap=True)
        for c in chunk:
            table.add_column(t.stats[c].label, justify="right", width=widths[c],
                             overflow="fold")
        for r in runs:
            f = b.figures.get(r["run_id"], {})
            table.add_row(labels[r["run_id"]], *(_cell(f.get(t.stats[c].key), t.stats[c])
                                                 for c in chunk))
        out.append(table)
        if last and t.note:
            out.append(Text(t.note, style="dim"))
    return out


def _model_table(b: BenchComparison, t: Table, width: int) -> RichTable:
    """The paper's Table 2 read down: per model, a row per figure (system) with the settings
    across, then the model's average of all its cells."""
    rows = b.model_rows.get(t.key, [])
    settings = list(dict.fromkeys(s for m in rows for s in m.runs))
    table = _table(t.title, t.note or None, width)
    table.add_column("model", max_width=16, overflow="fold")
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


def change_word(d: Difference) -> str:
    """'better' or 'worse' for this figure (e.g. IK down is better), '' where the figure has no
    better side or nothing changed."""
    return "" if d.improved is None else ("better" if d.improved else "worse")


def change_style(d: Difference) -> str:
    """Green for a change for the better, red for the worse; bold where significant (by the
    adjusted p-value), dim where not; a significant change of a figure without a better side
    is bold, uncoloured."""
    word = change_word(d)
    colour = {"better": "green", "worse": "red"}.get(word, "")
    return (f"bold {colour}".strip() if d.significant
            else (f"dim {colour}".strip() if colour else ""))


def _differences(b: BenchComparison, labels: dict[str, str], width: int) -> list[Any]:
    """Per table shown (each rule, each breakdown its own): one row per figure and run, the
    difference from the baseline, its interval, p, adjusted p, the test, and which way it
    went for that figure."""
    by = {(d.run_b, d.stat): d for d in b.differences}
    out: list[Text | RichTable] = []
    shown: list[tuple[str, str | None]] = []
    base = labels.get(b.baseline or "", b.baseline)
    for t in b.tables:
        if t.detail or t.rows != "run":
            continue
        rows = [(s, r, by[(r["run_id"], s.key)]) for s in t.stats for r in b.runs[1:]
                if (r["run_id"], s.key) in by]
        if not rows:
            continue
        shown += [(s.label, s.better) for s, _, _ in rows]
        table = _table(f"{t.title}: run − baseline {base}", None, width)
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("figure", "left"), ("run", "left"), ("diff", "right"), ("95% interval", "right"),
            ("p", "right"), ("p adj", "right"), ("test", "left"), ("change", "left"))
        for col, justify in columns:
            table.add_column(col, justify=justify, no_wrap=col != "figure",
                             max_width=14 if col == "figure" else None, overflow="fold")
        for k, (s, r, d) in enumerate(rows):
            style = change_style(d)
            test = formats.fmt_test(d.test, d.only_a, d.only_b, short=True)
            word = change_word(d)
            table.add_row(s.label, labels[r["run_id"]],
                          Text(fmt_diff(d.diff, s.fmt) + ("*" if d.significant else ""), style),
                          Text(fmt_interval(d.ci_low, d.ci_high, s.fmt, TERMINAL_DIGITS), "dim"),
                          fmt_p(d.p_value), fmt_p(d.p_adjusted), test,
                          Text(word + ("*" if d.significant and word else ""), style),
                          end_section=len(b.runs) > 2 and (k + 1 == len(rows)
                                                          or rows[k + 1][0] is not s))
        out.append(table)
    if out:
        out.append(Text(
            "diff in points; 95% interval: Tango's score interval for paired right/wrong items, "
            f"else the paired bootstrap; {stats.tests_note()}; p adj: Benjamini-Hochberg over "
            f"the table's figures; {stats.star_rule()}; change: better or worse for that figure "
            f"({formats.better_note(shown)})", style="dim"))
    return out


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
        labels = run_labels(b, width)
        parts.append(Text(f"\n{b.title}: {len(b.runs)} run(s), grader {', '.join(graders)}; "
                          "95% intervals (Wilson for shares of independent items, else "
                          f"{result.resamples} bootstrap resamples, seed {result.seed}); each "
                          "cell: figure (count), [interval] n", style="bold"))
        parts.append(_legend(b, labels, width))
        for t in b.tables:
            if t.detail or not b.runs_of[t.key]:
                continue
            if t.rows == "model":
                parts.append(_model_table(b, t, width))
            else:
                parts += _run_tables(b, t, width, labels)
        parts += _differences(b, labels, width)
        if b.graders:
            parts.append(_graders_table(b))
        parts += error_render.side_by_side(b.errors, labels)
        for s in b.sections:
            table = _table(None, None)
            for k, c in enumerate(s.columns):
                table.add_column(str(c), justify="left" if k == 0 else "right")
            for row in s.rows:          # a run named in a cell goes by its legend label
                table.add_row(*(labels.get(v, v) if isinstance(v, str) else str(v) for v in row))
            parts += [Text(s.title, style="italic"), table] + ([Text(s.note, style="dim")]
                                                               if s.note else [])
        detail = [t.title for t in b.tables if t.detail]
        if detail:
            parts.append(Text("Also in --json, --csv and the HTML report: " + "; ".join(detail),
                              style="dim"))
    return Group(*parts)
