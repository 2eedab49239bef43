"""WE-MATH results made with VLMEvalKit (open-compass/VLMEvalKit, read at commit e8e78f0 of
2026-08-18: vlmeval/inference.py, vlmeval/smp/file.py, vlmeval/dataset/image_mcq.py class
WeMath, vlmeval/dataset/utils/wemath.py and multiple_choice.py).

What VLMEvalKit writes, and how it is read here:
* the predictions file `{model}_WeMath.xlsx` (or `.tsv` / `.json` with PRED_FORMAT; `.csv`
  read too): the rows of its WeMath.tsv without the image column, plus `prediction` (the
  model's text; `Failed to obtain answer via API.` where an API call failed). The xlsx is
  written by pandas with xlsxwriter, the tsv with `QUOTE_ALL`. Rows are matched to testmini by
  `ID` and `key`; the official extraction grades `prediction` (grader `official`).
* the judged file `{model}_WeMath_{judge}.xlsx` (e.g. `_gpt4o-mini`): the same rows, every
  column name lower-cased except the option letters (`ID` renamed back), plus `hit` (its
  judge's 0/1 verdict) and `log`. `hit` is imported as grader `vlmevalkit_judge`, beside
  `official` (which stays the report's default): VLMEvalKit scores WE-MATH from `hit` when the
  file has it (`joker = hit`), else from the same regex as the authors.
A row whose `answer` differs from testmini's, an unknown question, or a repeat is left out and
listed. VLMEvalKit (like the authors' script and lmms-eval) divides by N = 525 whatever the file
holds; mathprobe takes N from the problems present (view wemath_four_dimensional_n525 shows what
they print).
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.wemath.data.dataset import Dataset
from mathprobe.benchmarks.wemath.data.official_results import match_row
from mathprobe.contract import OfficialRow, ResultFile, Skipped
from mathprobe.errors import DataError
from mathprobe.sheets import read_table
from mathprobe.store import Store

JUDGE_GRADER = "vlmevalkit_judge"
FAIL_MSG = "Failed to obtain answer via API."       # vlmeval/smp: what a failed call leaves
COMMIT = "e8e78f05f3080fe28154f2130321f17951c3be94"
FILE_NAME = re.compile(r"^(?P<model>.+)_(?P<dataset>WeMath(?:_COT)?)(?:_(?P<judge>.+?))?$")


def describe_file(path: Path) -> dict[str, Any]:
    """What VLMEvalKit's file name says: model, dataset and (judged file) the judge's name."""
    m = FILE_NAME.match(Path(path).stem)
    source: dict[str, Any] = {"tool": "VLMEvalKit", "read_at_commit": COMMIT}
    if m:
        source.update({k: v for k, v in m.groupdict().items() if v})
    return source


def _hit(value: Any) -> bool | None:
    """`hit` as VLMEvalKit stores it (0/1; read back as text) -> its verdict, as
    `df['hit'].astype(bool)` reads it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return float(text) != 0.0
    except ValueError:
        return None


def read_vlmevalkit(path: Path, dataset: Dataset) -> ResultFile:
    """A VLMEvalKit WeMath predictions or judged file (see the module's docstring)."""
    path = Path(path)
    table = read_table(path)
    columns = set().union(*(r.keys() for _, r in table)) if table else set()
    id_col = "ID" if "ID" in columns else "id" if "id" in columns else None
    missing = [c for c, ok in (("ID", id_col), ("key", "key" in columns),
                               ("prediction", "prediction" in columns)) if not ok]
    if missing:
        raise DataError(path, f"no {', '.join(repr(c) for c in missing)} column: not a "
                        f"VLMEvalKit WeMath file (its columns: {', '.join(sorted(columns))})")
    assert id_col is not None          # a file without one was refused just above
    judged = "hit" in columns
    known = dataset.by_id()
    rows: list[OfficialRow] = []
    skipped: list[Skipped] = []
    seen: dict[str, int] = {}
    for n, row in table:
        ident = f"{row.get(id_col)}/{row.get('key')}"
        item = match_row(known, seen, n, ident, row.get("answer"))
        if isinstance(item, Skipped):
            skipped.append(item)
            continue
        prediction = row.get("prediction")
        prediction = None if prediction is None else str(prediction)
        failure = prediction if prediction is not None and FAIL_MSG in prediction else None
        verdicts = {}
        if judged and failure is None:
            hit = _hit(row.get("hit"))
            if hit is None and row.get("hit") is not None:
                skipped.append(Skipped(n, ident, f"hit {row.get('hit')!r} is not 0 or 1"))
                continue
            if hit is not None:
                verdicts[JUDGE_GRADER] = (_first_line(row.get("log")), hit)
        seen[ident] = n
        rows.append(OfficialRow(item, None if failure else prediction, verdicts, failure, row=n))
    source = {**describe_file(path), "file_kind": "judged" if judged else "predictions"}
    return ResultFile(rows, skipped, default_verdicts=False, source=source)


def _first_line(log: Any) -> str | None:
    """The judge's log, shortened (what the verdict's `extracted` keeps of it)."""
    if log is None:
        return None
    text = " ".join(str(log).split())
    return text[:200] or None


# -- VLMEvalKit's score file, for results made here ------------------------------------------------

FOUR_DIM_COLUMNS = ("Score (Strict)", "InsufficientKnowledge (Strict)",
                    "InadequateGeneralization (Strict)", "CompleteMastery (Strict)",
                    "RoteMemorization (Strict)", "Score (Loose)", "InsufficientKnowledge (Loose)",
                    "InadequateGeneralization (Loose)", "CompleteMastery (Loose)",
                    "RoteMemorization (Loose)")


def score_row(store: Store, run_id: str, grader: str, model: str | None,
              n_assumed: int | None) -> dict[str, str]:
    """One row of the WE-MATH score table as the authors' scripts and VLMEvalKit print it:
    'Model', the four-dimensional columns ('45.71%', '12.38% (65)'), then S1-S3 and the 12
    categories ('40.58%'). `n_assumed`: the N they divide by (525, hard-coded in all three),
    or None for mathprobe's N from the data."""
    from mathprobe.benchmarks.wemath.figures import WEMATH_CATEGORIES

    view = "wemath_four_dimensional_n525" if n_assumed else "wemath_four_dimensional"
    four = {r["rule"]: r for r in store.query_dicts(
        f"SELECT * FROM {view} WHERE run_id = ? AND grader = ?", [run_id, grader])}
    if not four:
        raise DataError(run_id, f"no WE-MATH figures for grader {grader!r} (is every problem "
                        "answered whole?)")
    steps = store.query_dicts("SELECT s1, s2, s3 FROM wemath_step_accuracy WHERE run_id = ? "
                              "AND grader = ?", [run_id, grader])[0]
    cats = dict(store.query("SELECT category, accuracy FROM wemath_category_accuracy "
                            "WHERE run_id = ? AND grader = ?", [run_id, grader]))
    row = {"Model": model or ""}
    for rule in ("strict", "loose"):
        f = four[rule]
        label = rule.capitalize()
        row[f"Score ({label})"] = _pct(f["score"])
        for key, name in (("ik", "InsufficientKnowledge"), ("ig", "InadequateGeneralization"),
                          ("cm", "CompleteMastery"), ("rm", "RoteMemorization")):
            row[f"{name} ({label})"] = f"{_pct(f[key + '_rate'])} ({f[key]})"
    row.update({"One-step(S1)": _pct(steps["s1"]), "Two-step(S2)": _pct(steps["s2"]),
                "Three-step(S3)": _pct(steps["s3"])})
    row.update({cat: _pct(cats.get(cat)) for cat in WEMATH_CATEGORIES})
    return row


def _pct(x: float | None) -> str:
    """'{:.2%}' as the scripts format a fraction (pandas' NaN prints 'nan%')."""
    return "nan%" if x is None else f"{x:.2%}"


def write_score_csv(store: Store, run_id: str, grader: str | None, out_dir: Path,
                    data_dir: Path | None = None) -> tuple[list[Path], list[str]]:
    """VLMEvalKit's `{model}_WeMath_{judge}_score.csv` for a run made here: its one row of the
    two tables merged (four-dimensional, then accuracy), every cell quoted (its `dump` writes
    csv with QUOTE_ALL), 'Model' left empty as VLMEvalKit leaves it, N = 525 as it divides."""
    grader = grader or "official"
    row = score_row(store, run_id, grader, None, 525)
    path = Path(out_dir) / f"{_safe(run_id)}_WeMath_{_safe(grader)}_score.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(row.keys())
        w.writerow(row.values())
    return [path], n525_notes(store, run_id, grader)


def n525_notes(store: Store, run_id: str, grader: str) -> list[str]:
    """The note a score file divided by 525 needs when the run holds another number of
    problems."""
    rows = store.query("SELECT n FROM wemath_four_dimensional WHERE run_id = ? AND grader = ? "
                       "LIMIT 1", [run_id, grader])
    if not rows or rows[0][0] == 525:
        return []
    return [f"run {run_id} holds {rows[0][0]} WE-MATH problems, not 525: the score files divide "
            "by 525 as the authors' script, VLMEvalKit and lmms-eval do (mathprobe report shows "
            "the figures over the problems present)"]


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "-", name).strip("-") or "run"
