"""What every report's words mean: the terms all benchmarks share (the benchmarks add theirs
through `Comparison.glossary`)."""
from __future__ import annotations

from mathprobe.reports import stats

CORE = [
    ("Accuracy", "Right answers / graded answers. A refusal counts wrong; a failed call "
     "(infra_failed) or a reply cut at the token cap before its answer (truncated) is in no "
     "figure until asked again. An answer the grader left undecided (no "
     "verdict: its rules could not read it, or a judge's reply had none) counts as each "
     "benchmark's paper does: CMMaTH counts it as not right (its figures are over all answers); "
     "WE-MATH and ConceptMath leave it out of every figure, as a failed call (a WE-MATH problem "
     "with such a question is not among the N problems)."),
    ("95% CI", "How each figure's interval is made is named beside it (ci_method in --json and "
     "CSV); never zero width when n > 0. wilson: a share of independent right/wrong units (a "
     "question, or a WE-MATH problem for IK, IG, CM, S2, S3) gets the Wilson score interval of "
     f"k right of n. bootstrap: any other figure, the percentile interval of {stats.RESAMPLES} "
     f"bootstrap resamples (seed {stats.SEED}) of the run's units: whole problems for WE-MATH "
     "(a problem's questions travel together), questions otherwise; the same units are "
     "resampled the same way in every run, so the report is reproducible; widened, if needed, "
     "to contain its estimate (non-smooth figures such as SSR@alpha). wilson-units: where every "
     "resample gave the same value (e.g. 0 right of 12 questions in 6 problems), the Wilson "
     "interval at the estimate with n = the units, each problem counted once. docs/intervals.md "
     "says more."),
    ("n", "What a figure is computed over: questions for accuracies, problems for WE-MATH's "
     "four dimensions and Score, composite successes (RM + CM) for the RM rate, questions of the "
     "category for WE-MATH's categories, knowledge points for SSR@alpha, cells for an average; "
     "for a difference tested by McNemar, the items both runs graded."),
    ("Difference", "A run minus the baseline (the first run compared), in percentage points, over "
     "the units both runs have. Its 95% interval (ci_method): tango, Tango's score interval "
     "for paired right/wrong items (each item one unit); bootstrap, the paired bootstrap; "
     "tango-units, where every resampled difference was the same (e.g. identical answers), "
     "Tango's interval over the units that moved up or down. Which way is better is the "
     "figure's own, named beside each benchmark's differences: the terminal and the report "
     "colour an improvement green and a loss red."),
    ("McNemar test", "For a share of right/wrong items: the exact test of the items exactly one "
     "of the two runs got right (a binomial test of the discordant pairs against 50/50); "
     "p = 1 when there are none."),
    ("Paired bootstrap test", "For other figures (categories, averages, SSR): the "
     "two-sided p-value from the resampled differences (twice the smaller share on either side "
     f"of 0), where at least {stats.MIN_N[stats.BOOTSTRAP_TEST]} units moved."),
    ("Sign test", f"Where fewer than {stats.MIN_N[stats.BOOTSTRAP_TEST]} units moved (or the "
     "resampled differences all agree), in place of the bootstrap: the exact binomial test of "
     "the units whose figure went down against those whose figure went up (sign k/l); it "
     f"cannot reach p < {stats.SIGNIFICANCE} with fewer than "
     f"{stats.MIN_N[stats.SIGN]} units, so a one-problem difference is never marked."),
    ("Adjusted p (p_adj)", "Each table's figures (e.g. the 67 WE-MATH leaves, a level of "
     "ConceptMath concepts) are tested together, one run against the baseline: their p-values "
     "are adjusted by Benjamini-Hochberg, which bounds the expected share of false "
     "findings among the figures marked, so a few of hundreds of concepts are not flagged by "
     "chance alone. A figure shown in several tables belongs to the first."),
    ("Significant (*)", f"Adjusted p < {stats.SIGNIFICANCE} and the difference's 95% interval "
     "clear of 0 (the raw p-value is shown too); the same rule in every output."),
    ("Status of a response", "ok: answered; refused: the model declined (graded wrong); missing: "
     "an imported file had no response (graded wrong); infra_failed: the call failed after its "
     "retries (never graded, re-asked with --retry-failed); truncated: the reply stopped at the "
     "token cap inside the model's reasoning or before its answer (never graded, re-asked with a "
     "larger --max-tokens or --retry-failed); judge_failed: the judge's reply had no verdict; "
     "not asked: in the run's selection but never sent (e.g. --max-cost)."),
    ("Grader", "What decided right or wrong: a benchmark's rule grader (e.g. official, the "
     "authors' own extraction), or judge:<model> / cascade:<model> where a model judges what the "
     "rules leave undecided."),
    ("Tokens, cost", "Input and output tokens of the answers that count, and their cost in USD "
     "from the price table; a reasoning model's reasoning tokens are output tokens (shown apart "
     "where the API reports them) and priced as such; the judge's calls are a run of their own "
     "and are counted apart."),
]
