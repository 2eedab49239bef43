"""What every report's words mean: the terms all benchmarks share (the benchmarks add theirs
through `Comparison.glossary`)."""
from __future__ import annotations

from mathprobe.tasks.reports import stats

CORE = [
    ("Accuracy", "Right answers / graded answers. A refusal counts wrong; a failed call "
     "(infra_failed) is in no figure until retried. An answer the grader left undecided (no "
     "verdict: its rules could not read it, or a judge's reply had none) counts as each "
     "benchmark's paper does: CMMaTH counts it as not right (its figures are over all answers); "
     "WE-MATH and ConceptMath leave it out of every figure, as a failed call (a WE-MATH problem "
     "with such a question is not among the N problems)."),
    ("95% CI", f"Percentile interval of {stats.RESAMPLES} bootstrap resamples (seed "
     f"{stats.SEED}) of the run's units: whole problems for WE-MATH, questions otherwise. The "
     "same units are resampled the same way in every run, so the report is reproducible. An "
     "interval is widened, if needed, to contain its estimate (non-smooth figures such as "
     "SSR@alpha)."),
    ("n", "What a figure is computed over: questions for accuracies, problems for WE-MATH's "
     "four dimensions and Score, composite successes (RM + CM) for the RM rate, questions of the "
     "category for WE-MATH's categories, knowledge points for SSR@alpha, cells for an average."),
    ("Difference", "A run minus the baseline (the first run compared), in percentage points, over "
     "the units both runs have, with its paired-bootstrap 95% interval."),
    ("McNemar test", "For a share of right/wrong items: the exact test of the items exactly one "
     "of the two runs got right (a binomial test of the discordant pairs against 50/50, scipy); "
     "p = 1 when there are none."),
    ("Paired bootstrap test", "For other figures (Score, rates over problems, averages): the "
     "two-sided p-value from the resampled differences (twice the smaller share on either side "
     "of 0)."),
    ("Significant (*)", f"p < {stats.SIGNIFICANCE}; each figure is tested on its own, with no "
     "correction for the many figures compared."),
    ("Status of a response", "ok: answered; refused: the model declined (graded wrong); missing: "
     "an imported file had no response (graded wrong); infra_failed: the call failed after its "
     "retries (never graded, re-asked with --retry-failed); judge_failed: the judge's reply had "
     "no verdict; not asked: in the run's selection but never sent (e.g. --max-cost)."),
    ("Grader", "What decided right or wrong: a benchmark's rule grader (e.g. official, the "
     "authors' own extraction), or judge:<model> / cascade:<model> where a model judges what the "
     "rules leave undecided."),
    ("Tokens, cost", "Input and output tokens of the answers that count, and their cost in USD "
     "from the price table; the judge's calls are a run of their own and are counted apart."),
]
