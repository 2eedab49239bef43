"""Why the compared runs failed, read from the views (sql/core/errors/*.sql and the benchmark's
own): per run and labeller, the distribution of the error types of its wrong answers with
Wilson intervals (every report draws it: CMMaTH's Figure 6 is this), the paper's other figures
its taxonomy declares (`ErrorFigure`: WE-MATH's Figure 11 and its multi-step correspondence,
ConceptMath's Table 4), how the labels cover the wrong answers (a sample, unreadable replies),
how far any two labellers agree (Cohen's kappa overall and per type, the confusion table),
and, run against the first run, whether two distributions differ (Fisher's exact test, shown
only where both runs have at least `MIN_N` labelled errors).

One dict for every output: `report --json` carries it as it is; the terminal, the Markdown
artifact, `compare` and the HTML report draw it (mathprobe.reports.error_render, html.py).
Nothing here names a benchmark: what is drawn is what the taxonomy declares.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mathprobe.contract import Benchmark
from mathprobe.error_taxonomy import ErrorTaxonomy
from mathprobe.figures import ErrorFigure
from mathprobe.reports import fisher, intervals, stats
from mathprobe.runs.labelling import label_run_id
from mathprobe.store import Store

# The fewest labelled errors each of two runs needs before their distributions are tested:
# below it a test of a 4-way split says nothing useful (and Fisher's Monte Carlo p-value of a
# handful of answers is noise); the comparison says "not tested" and why.
MIN_N = 20
TEST_RESAMPLES = 9999      # Fisher's exact test of a 2 x k table: its Monte Carlo p-value


def build(store: Store, bench: Benchmark, runs: Sequence[Mapping[str, Any]]
          ) -> dict[str, Any] | None:
    """The error analysis of `runs` (run_summary rows with their report `grader`), or None
    when the benchmark has no taxonomy or none of the runs has a label."""
    tax = bench.error_taxonomy
    if tax is None or not runs:
        return None
    # the runs with labels, from the labels table alone (small): a report or comparison of
    # runs nobody labelled reads nothing more; then each labelled run by its id (a view is
    # pruned to one run by an equality on run_id, not by a list)
    labelled_runs = {r for (r,) in store.query(
        "SELECT DISTINCT run_id FROM error_labels WHERE list_contains(?, run_id)",
        [[r["run_id"] for r in runs]])}
    ids = [r["run_id"] for r in runs if r["run_id"] in labelled_runs]
    grader_of = {r["run_id"]: r["grader"] for r in runs}
    rows, sources = [], {}
    for run_id in ids:
        rows += store.query_dicts(
            "SELECT run_id, grader, labeler, error_type, position, n, n_by_rule, n_labelled, "
            "n_wrong, share FROM error_types_distribution WHERE run_id = ? AND grader = ? "
            "ORDER BY labeler, position", [run_id, grader_of[run_id]])
        sources.update({(run_id, lab): src for lab, src in store.query(
            "SELECT labeler, CASE WHEN bool_or(source = 'human') THEN 'human' "
            "WHEN bool_or(source = 'model') THEN 'model' ELSE 'rules' END "
            "FROM error_labels_current WHERE run_id = ? GROUP BY ALL", [run_id])})
    if not rows:
        return None
    ids = list(dict.fromkeys(r["run_id"] for r in rows))
    labelled: list[dict[str, Any]] = []
    for run_id in ids:
        for labeler in dict.fromkeys(r["labeler"] for r in rows if r["run_id"] == run_id):
            mine = [r for r in rows if r["run_id"] == run_id and r["labeler"] == labeler]
            labelled.append(_labeller(store, tax, run_id, grader_of[run_id], labeler, mine,
                                      sources.get((run_id, labeler), "model")))
    agreement = [a for run_id in ids for a in pair_agreements(store, run_id)]
    humans = {(x["run_id"]) for x in labelled if x["source"] == "human"}
    notes = []
    for x in labelled:
        if x["source"] != "human" and x["run_id"] not in humans:
            notes.append(f"run {x['run_id']}: the error types are {x['labeler']}'s, a model's "
                         "labels, not audited against people (no human labels for this run: "
                         "mathprobe errors export-sheet, then import-sheet)")
        notes += x["coverage_notes"]
    return {"benchmark": bench.name, "title": tax.distribution, "source": tax.source,
            "protocol": tax.protocol,
            "types": [{"name": t.name, "definition": t.definition,
                       "source": t.source or tax.source} for t in tax.all_types],
            "labelled": labelled, "agreement": agreement,
            "tests": _tests(labelled, runs[0]["run_id"]) if len(runs) > 1 else [],
            "min_n": MIN_N, "notes": list(dict.fromkeys(notes))}


def _labeller(store: Store, tax: ErrorTaxonomy, run_id: str, grader: str, labeler: str,
              rows: list[dict[str, Any]], source: str) -> dict[str, Any]:
    n_labelled, n_wrong = rows[0]["n_labelled"], rows[0]["n_wrong"]
    lo, hi = intervals.wilson([r["n"] for r in rows], [n_labelled] * len(rows), stats.CONFIDENCE)
    types = [{"error_type": r["error_type"], "n": r["n"], "n_by_rule": r["n_by_rule"],
              "share": r["share"], "ci_low": float(lo[k]), "ci_high": float(hi[k]),
              "ci_method": stats.WILSON}
             for k, r in enumerate(rows)]
    lrun = label_run_id(run_id, labeler)
    facts = store.card_facts(lrun) or {}
    spent = store.query("SELECT coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
                        "coalesce(sum(cost_usd), 0) FROM current_responses WHERE run_id = ?",
                        [lrun])[0]
    why = unlabelled(store, run_id, grader, labeler)
    coverage = []
    if n_labelled < n_wrong:
        reasons = [f"{n} {text}" for key, text in UNLABELLED.items() if (n := why[key])]
        left = n_wrong - n_labelled - sum(why[k] for k in UNLABELLED)
        if left:
            reasons.append(f"{left} " + (f"outside the seeded stratified sample (--sample "
                                         f"{facts['sample']})" if facts.get("sample")
                                         and not facts.get("all") else "not labelled by it"))
        coverage.append(f"run {run_id}, {labeler}: labels cover {n_labelled} of its {n_wrong} "
                        f"wrong answers (" + "; ".join(reasons) + "); the shares are over the "
                        "labelled ones" + ("; --retry-failed asks the label_failed and failed "
                                           "calls again" if why["label_failed"] or
                                           why["infra_failed"] else ""))
    return {"run_id": run_id, "grader": grader, "labeler": labeler, "source": source,
            "n_wrong": n_wrong, "n_labelled": n_labelled,
            "sample": None if facts.get("all") else facts.get("sample"),
            "unlabelled": why, "input_tokens": int(spent[0]), "output_tokens": int(spent[1]),
            "cost_usd": float(spent[2]), "types": types,
            "figures": [_figure(store, f, run_id, grader, labeler, tax) for f in tax.figures],
            "coverage_notes": coverage}


# why a wrong answer has no label of a labeller (besides a sample that left it out)
UNLABELLED = {"label_failed": "label_failed (no readable error type in the reply)",
              "infra_failed": "failed calls", "no_attempt": "refusals or empty answers "
              "(the taxonomy has no type for them)", "missing": "without a response"}


def unlabelled(store: Store, run_id: str, grader: str, labeler: str) -> dict[str, int]:
    """The run's wrong answers under `grader` that `labeler` gave no label, by reason."""
    (label_failed, infra, no_attempt, missing), = store.query("""
        SELECT count(*) FILTER (lr.status = 'label_failed'),
               count(*) FILTER (lr.status = 'infra_failed'),
               count(*) FILTER (c.status = 'refused'
                                OR (c.status = 'ok' AND trim(coalesce(c.response, '')) = '')),
               count(*) FILTER (c.status = 'missing')
        FROM item_verdicts v
        JOIN current_responses c ON c.response_id = v.response_id
        LEFT JOIN error_labels_current l
          ON l.run_id = v.run_id AND l.item_id = v.item_id AND l.labeler = ?
        LEFT JOIN current_responses lr ON lr.run_id = ? AND lr.item_id = v.item_id
        WHERE v.run_id = ? AND v.grader = ? AND NOT v.correct AND l.item_id IS NULL""",
        [labeler, label_run_id(run_id, labeler), run_id, grader])
    return {"label_failed": label_failed, "infra_failed": infra, "no_attempt": no_attempt,
            "missing": missing}


def _figure(store: Store, fig: ErrorFigure, run_id: str, grader: str, labeler: str,
            tax: ErrorTaxonomy) -> dict[str, Any]:
    """A declared figure's rows for one run and labeller: a matrix pivoted to one row per
    `row` (with its group) and a count per type, and per type the rows with any; a listing
    as its declared columns."""
    order = f" ORDER BY {fig.order}" if fig.order else ""
    rows = store.query_dicts(f"SELECT * FROM {fig.view} WHERE run_id = ? AND grader = ? "
                             f"AND labeler = ?{order}", [run_id, grader, labeler])
    out: dict[str, Any] = {"key": fig.key, "title": fig.title, "kind": fig.kind,
                           "note": fig.note, "view": fig.view}
    if fig.kind == "matrix":
        names = list(tax.names)
        cells: dict[tuple[str, str], dict[str, int]] = {}
        for r in rows:
            key = (r.get(fig.group, "") if fig.group else "", r[fig.row])
            cells.setdefault(key, {n: 0 for n in names})[r["error_type"]] = int(r[fig.count])
        ordered = sorted(cells, key=lambda k: (k[0] or "", k[1]))
        out.update(types=names, rows=[{"group": g, "label": label, "counts": cells[(g, label)]}
                                      for g, label in ordered],
                   with_any={n: sum(1 for k in ordered if cells[k][n]) for n in names},
                   n_rows=len(ordered))
    else:
        out.update(columns=[list(c) for c in fig.columns],
                   rows=[[r.get(c) for c, _ in fig.columns] for r in rows])
    return out


def pair_agreements(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Each unordered pair of the run's labellers that labelled answers in common: overall
    kappa, per type, and the confusion table (a person's labels second when one is)."""
    pairs = store.query_dicts(
        "SELECT a.*, (SELECT bool_or(source_a = 'human') FROM error_labels_paired p WHERE "
        "p.run_id = a.run_id AND p.labeler_a = a.labeler_a AND p.labeler_b = a.labeler_b) "
        "AS a_human, (SELECT bool_or(source_b = 'human') FROM error_labels_paired p WHERE "
        "p.run_id = a.run_id AND p.labeler_a = a.labeler_a AND p.labeler_b = a.labeler_b) "
        "AS b_human FROM error_labels_paired_agreement a WHERE a.run_id = ? "
        "ORDER BY labeler_a, labeler_b", [run_id])
    out = []
    for p in pairs:
        # each pair once: a model first and a person second, else by name
        if (p["a_human"], p["labeler_a"]) > (p["b_human"], p["labeler_b"]):
            continue
        args = [run_id, p["labeler_a"], p["labeler_b"]]
        out.append({
            "run_id": run_id, "labeler_a": p["labeler_a"], "labeler_b": p["labeler_b"],
            "human_a": bool(p["a_human"]), "human_b": bool(p["b_human"]),
            "n_both": p["n_both"], "n_agree": p["n_agree"], "agreement": p["agreement"],
            "expected": p["expected"], "kappa": p["kappa"],
            "by_type": store.query_dicts(
                "SELECT error_type, n_both, both_type, only_a, only_b, neither, agreement, kappa "
                "FROM error_labels_paired_by_type WHERE run_id = ? AND labeler_a = ? AND "
                "labeler_b = ? ORDER BY error_type", args),
            "confusion": [list(r) for r in store.query(
                "SELECT type_a, type_b, n FROM error_labels_paired_confusion WHERE run_id = ? "
                "AND labeler_a = ? AND labeler_b = ? ORDER BY type_a, type_b", args)]})
    return out


def _tests(labelled: list[dict[str, Any]], baseline: str) -> list[dict[str, Any]]:
    """Each later run against the baseline, per labeller both have: Fisher's exact test of the
    2 x k table of type counts (Monte Carlo p-value, seeded), and per type a 2 x 2 Fisher test
    (that type or another) with Benjamini-Hochberg adjusted p-values; not tested below MIN_N
    labelled errors in either run."""
    base = {x["labeler"]: x for x in labelled if x["run_id"] == baseline}
    out = []
    for x in labelled:
        a = base.get(x["labeler"])
        if x["run_id"] == baseline or a is None:
            continue
        entry = {"run_a": baseline, "run_b": x["run_id"], "labeler": x["labeler"],
                 "n_a": a["n_labelled"], "n_b": x["n_labelled"], "min_n": MIN_N,
                 "test": "fisher", "p_value": None, "by_type": []}
        if min(a["n_labelled"], x["n_labelled"]) < MIN_N:
            entry["test"] = None
            entry["reason"] = (f"not tested: fewer than {MIN_N} labelled errors in a run "
                               f"({a['n_labelled']} vs {x['n_labelled']})")
            out.append(entry)
            continue
        table = np.array([[t["n"] for t in a["types"]], [t["n"] for t in x["types"]]])
        entry["p_value"] = _fisher(table[:, table.sum(axis=0) > 0])
        per = [(a["types"][k], x["types"][k]) for k in range(table.shape[1])]
        ps = [_fisher(np.array([[ta["n"], a["n_labelled"] - ta["n"]],
                                [tb["n"], x["n_labelled"] - tb["n"]]])) for ta, tb in per]
        adjusted = intervals.adjust([np.nan if p is None else p for p in ps])
        entry["by_type"] = [
            {"error_type": ta["error_type"], "share_a": ta["share"], "share_b": tb["share"],
             "diff": tb["share"] - ta["share"], "p_value": p,
             "p_adjusted": None if np.isnan(q) else float(q),
             "significant": stats.significant(None if np.isnan(q) else float(q))}
            for (ta, tb), p, q in zip(per, ps, adjusted)]
        entry["significant"] = stats.significant(entry["p_value"])
        out.append(entry)
    return out


def _fisher(table: np.ndarray) -> float | None:
    """Fisher's exact test of independence of a 2 x k table (mathprobe.reports.fisher): exact
    for 2 x 2, a seeded Monte Carlo p-value otherwise; None where a row or the table is
    empty."""
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return None
    if table.shape == (2, 2):
        return fisher.fisher_2x2(table)
    return fisher.fisher_2xk(table, TEST_RESAMPLES, stats.SEED)
