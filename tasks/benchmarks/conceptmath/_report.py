"""ConceptMath's paper-style report, read from the views: Table 2 (systems x prompt settings for
the run's model), the run's accuracy per system, and its lowest level-3 concepts ("unmastered")."""
from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mathprobe.tasks.reports.format import pct
from mathprobe.tasks.store import Store

# The paper's column order and labels (Table 2).
SYSTEMS = {"element_en": "Elementary-EN", "middle_en": "Middle-EN",
           "element_zh": "Elementary-ZH", "middle_zh": "Middle-ZH"}
SETTINGS = {"zs": "ZS", "zs-cot": "ZS-CoT", "fs": "FS"}
GRADER_NOTES = {
    "official": "the authors' grader (lenient: any number after the answer phrase may match, "
                "within |gold|/20 below 20, else 1); the official figures",
    "strict": "final answer only, exact equivalence (math-verify); not the paper's figures",
}
N_UNMASTERED = 10


def unmastered_min_n(store: Store) -> int:
    """The fewest graded problems a concept needs to be called unmastered (the view's)."""
    return int(store.query("SELECT conceptmath_unmastered_min_n()")[0][0])


def _order(keys, known: dict[str, str]) -> list[str]:
    return sorted(keys, key=lambda k: (list(known).index(k) if k in known else len(known), k))


PROBE_VIEWS = {"contamination-rouge": "contamination_rouge",
               "contamination-mink": "contamination_mink", "classify": "conceptmath_classification"}
PROBE_NOTES = {
    "contamination-rouge": "Rouge-L F of the continuation of each question's first half (given as "
                           "is to a completion endpoint) against its true second half; rouge_l_x100"
                           " is the scale of the paper's Table 3. Higher: more likely seen.",
    "contamination-mink": "MIN-K% (K = 10%): min_k is the mean log-probability of the question's "
                          "least likely tokens (Shi et al.'s definition); min_k_prob = exp(min_k),"
                          " the same on the probability scale (0, 1], averaged over questions. "
                          "Higher: more likely seen.",
    "classify": "MRR and top-1 of the true level-2 concept; open models rank the concepts "
                "(options A, B, ...) by each label's likelihood, API models give a ranked list.",
}


def build(store: Store, run_id: str, grader: str) -> dict[str, Any]:
    (setting,), = store.query("SELECT setting FROM runs WHERE run_id = ?", [run_id])
    if setting in PROBE_VIEWS:          # a contamination or classification run
        rows = store.query_dicts(f"SELECT * EXCLUDE (run_id) FROM {PROBE_VIEWS[setting]} "
                                 "WHERE run_id = ? ORDER BY system", [run_id])
        return {"grader": "-", "probe": setting, "view": PROBE_VIEWS[setting], "rows": rows,
                "note": PROBE_NOTES[setting]}
    args = [run_id, grader]
    systems = store.query_dicts("SELECT system, n, correct, accuracy FROM conceptmath_accuracy "
                                "WHERE run_id = ? AND grader = ?", args)
    overall = store.query_dicts("SELECT n, correct, accuracy FROM conceptmath_run_accuracy "
                                "WHERE run_id = ? AND grader = ?", args)
    model = store.query("SELECT model FROM runs WHERE run_id = ?", [run_id])
    # conceptmath_table2, each chosen run's accuracies asked by its id (a filter on run_id
    # reaches only that run's rows; the macro's join would compute every run's first)
    cells = sorted((dict(c, setting=setting, run_id=rid)
                    for setting, rid in store.query("SELECT setting, run_id "
                                                    "FROM conceptmath_table2_runs(?)", [run_id])
                    for c in store.query_dicts("SELECT system, n, accuracy FROM conceptmath_accuracy "
                                               "WHERE run_id = ? AND grader = ?", [rid, grader])),
                   key=lambda c: (c["setting"], c["system"]))
    (average,), = store.query("SELECT list_avg(?::DOUBLE[])", [[c["accuracy"] for c in cells]])
    n_cells = len(cells)
    unmastered = store.query_dicts(
        "SELECT system, rank, concept, n, accuracy FROM conceptmath_unmastered "
        "WHERE run_id = ? AND grader = ? AND level = 3 AND rank <= ? ORDER BY system, rank",
        [run_id, grader, N_UNMASTERED])
    level1 = store.query_dicts(
        "SELECT system, concept, n, accuracy FROM conceptmath_concept_accuracy "
        "WHERE run_id = ? AND grader = ? AND level = 1 ORDER BY system, concept", args)
    graders = dict(store.query("SELECT grader, accuracy FROM conceptmath_run_accuracy "
                               "WHERE run_id = ? ORDER BY grader", [run_id]))
    (official_only, strict_only), = store.query(
        "SELECT count(*) FILTER (official), count(*) FILTER (strict) "
        "FROM conceptmath_grader_disagreement WHERE run_id = ?", [run_id])
    table: dict[str, dict[str, Any]] = {}
    for c in cells:
        table.setdefault(c["setting"], {})[c["system"]] = {
            "accuracy": c["accuracy"], "n": c["n"], "run_id": c["run_id"]}
    by_system = {s["system"]: s for s in systems}
    rank_of = {k: i for i, k in enumerate(SYSTEMS)}
    unmastered.sort(key=lambda u: (rank_of.get(u["system"], len(rank_of)), u["system"], u["rank"]))
    return {
        "grader": grader,
        "grader_note": GRADER_NOTES.get(grader, ""),
        "accuracy": {
            "overall": overall[0]["accuracy"] if overall else None,
            "n": overall[0]["n"] if overall else 0,
            "systems": {k: by_system[k] for k in _order(by_system, SYSTEMS)},
        },
        "table2": {
            "model": model[0][0] if model else None,
            "cells": {s: {k: table[s][k] for k in _order(table[s], SYSTEMS)}
                      for s in _order(table, SETTINGS)},
            "average": average,
            "n_cells": n_cells,
        },
        "level1": level1,
        "unmastered": unmastered,
        "unmastered_min_n": unmastered_min_n(store),
        "graders": {"accuracy": graders,
                    "disagree": {"official_only": official_only, "strict_only": strict_only}},
    }


def _render_probe(report: dict[str, Any]) -> list[Any]:
    table = Table(title=f"{report['probe']} (view {report['view']})", title_justify="left")
    rows = report["rows"]
    for col in (rows[0] if rows else {"system": None}):
        table.add_column(col, justify="left" if col == "system" else "right")
    for r in rows:
        table.add_row(*(f"{v:.4f}" if isinstance(v, float) else str(v) for v in r.values()))
    return [table, Text(report.get("note", ""), style="dim")]


def render(report: dict[str, Any], width: int = 120) -> list[Any]:
    if "probe" in report:
        return _render_probe(report)
    t2 = report["table2"]
    cells = t2["cells"]
    settings = list(cells)
    systems = _order({s for row in cells.values() for s in row}, SYSTEMS)
    title = "ConceptMath accuracy (%) — paper Table 2"
    heading = Text(f"Table 2 row of model {t2['model']} (one run per prompt setting; "
                   f"grader {report['grader']})", style="bold")
    columns = [(sys, st) for sys in systems for st in settings]
    if width >= 9 * (len(columns) + 1) + 4:             # the paper's layout: one row
        table = Table(title=title, title_justify="left", min_width=min(width, len(title) + 2))
        for sys, st in columns:
            table.add_column(f"{SYSTEMS.get(sys, sys)}\n{SETTINGS.get(st, st)}", justify="right")
        table.add_column("Avg.", justify="right")
        table.add_row(*(pct(cells[st].get(sys, {}).get("accuracy")) for sys, st in columns),
                      pct(t2["average"]))
    else:                                               # narrow: systems down, settings across
        table = Table(title=title, title_justify="left", min_width=min(width, len(title) + 2))
        table.add_column("system")
        for st in settings:
            table.add_column(SETTINGS.get(st, st), justify="right")
        for sys in systems:
            table.add_row(SYSTEMS.get(sys, sys),
                          *(pct(cells[st].get(sys, {}).get("accuracy")) for st in settings))
        table.add_row("Avg.", *([""] * (len(settings) - 1)), pct(t2["average"]))
    acc = report["accuracy"]
    per = Table(title="This run, per system", title_justify="left")
    for col in ("system", "n", "correct", "accuracy %"):
        per.add_column(col, justify="right" if col != "system" else "left")
    for sys, row in acc["systems"].items():
        per.add_row(SYSTEMS.get(sys, sys), str(row["n"]), str(row["correct"]),
                    pct(row["accuracy"]))
    if len(acc["systems"]) > 1:
        per.add_row("all", str(acc["n"]), "", pct(acc["overall"]))
    low = Table(title=f"Unmastered: the {N_UNMASTERED} lowest level-3 concepts per system "
                f"(of those with at least {report.get('unmastered_min_n', 5)} graded problems)",
                title_justify="left")
    for col in ("system", "rank", "concept (cate0/cate1/cate2)", "n", "accuracy %"):
        low.add_column(col, justify="right" if col in ("rank", "n", "accuracy %") else "left")
    for u in report["unmastered"]:
        low.add_row(SYSTEMS.get(u["system"], u["system"]), str(u["rank"]), u["concept"],
                    str(u["n"]), pct(u["accuracy"]))
    g = report["graders"]
    notes = [Text(f"grader {report['grader']}: {report['grader_note']}", style="dim")]
    if len(g["accuracy"]) > 1:
        notes.append(Text(
            "overall accuracy by grader: "
            + ", ".join(f"{k} {pct(v)}" for k, v in g["accuracy"].items())
            + f"; they disagree on {g['disagree']['official_only']} (official only right) + "
              f"{g['disagree']['strict_only']} (strict only right) problems "
              "(view conceptmath_grader_disagreement)", style="dim"))
    if t2["n_cells"] < len(SYSTEMS) * len(SETTINGS):
        notes.append(Text(f"Avg. is over the {t2['n_cells']} cell(s) present (the paper's is "
                          f"over all {len(SYSTEMS) * len(SETTINGS)}: 4 systems x 3 settings)",
                          style="yellow"))
    return [heading, table, per, low, *notes]


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    if "probe" in report:
        return [(f"{r['system']} {k}", f"{v:.4f}" if isinstance(v, float) else str(v))
                for r in report["rows"] for k, v in r.items() if k != "system"]
    """(figure, value) pairs for the Prefect artifact."""
    out = [("grader note", report["grader_note"]),
           ("accuracy (all systems)", pct(report["accuracy"]["overall"]))]
    out += [(f"accuracy {SYSTEMS.get(s, s)}", pct(r["accuracy"]))
            for s, r in report["accuracy"]["systems"].items()]
    t2 = report["table2"]
    for st, row in t2["cells"].items():
        out += [(f"Table 2 {SYSTEMS.get(s, s)} {SETTINGS.get(st, st)}", pct(c["accuracy"]))
                for s, c in row.items()]
    out.append((f"Table 2 Avg. ({t2['n_cells']} cells)", pct(t2["average"])))
    out += [(f"unmastered {SYSTEMS.get(u['system'], u['system'])} #{u['rank']}",
             f"{u['concept']} ({pct(u['accuracy'])}, n={u['n']})") for u in report["unmastered"]]
    for k, v in report["graders"]["accuracy"].items():
        out.append((f"accuracy by grader {k}", pct(v)))
    return out
