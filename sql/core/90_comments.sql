-- The core tables and views explain themselves: what each is, the paper's name for it, the unit
-- (those not already given beside their definitions). Applied after the definitions, with them
-- (a view re-created by CREATE OR REPLACE loses its comments). tests/store/test_comments.py
-- checks that every table, view and column of a store has one.

COMMENT ON TABLE runs IS 'One row per evaluation run: what was asked of which model, and its state. Imports and probe runs are runs too.';
COMMENT ON COLUMN runs.run_id IS 'The run''s id, chosen by the user (--run-id); reusing it resumes the run.';
COMMENT ON COLUMN runs.benchmark IS 'The benchmark evaluated (its registered name).';
COMMENT ON COLUMN runs.model IS 'BACKEND:NAME of the model (e.g. openai:gpt-4o, baseline:random; import:<file> for imported responses).';
COMMENT ON COLUMN runs.backend IS 'The backend kind: openai, anthropic, triton, baseline, replay or import.';
COMMENT ON COLUMN runs.setting IS 'The prompt setting (e.g. plain, kca, zs, fs, text+ocr/clp), or the probe.';
COMMENT ON COLUMN runs.params IS 'Generation parameters as JSON (temperature, max_tokens, ...), part of the run''s identity.';
COMMENT ON COLUMN runs.started_at IS 'When the run was first started (UTC).';
COMMENT ON COLUMN runs.finished_at IS 'When it last finished (UTC); NULL while running.';
COMMENT ON COLUMN runs.status IS 'running, completed, incomplete (some calls failed), interrupted or stopped_max_cost.';
COMMENT ON COLUMN runs.cost_usd IS 'What the run''s responses cost, in USD (from the price table).';
COMMENT ON COLUMN runs.n_items IS 'Items the run covers (after --limit).';

COMMENT ON TABLE items IS 'The benchmark rows as loaded from the data directory, one per question; and rows a result file defines itself for problems the local data lacks (mathprobe import, e.g. a CMMaTH authors'' result file), which a reload of the data leaves in place.';
COMMENT ON COLUMN items.benchmark IS 'The benchmark the item belongs to.';
COMMENT ON COLUMN items.item_id IS 'The item''s id: WE-MATH {ID}/{key}, ConceptMath {system}/{idx}, CMMaTH problem_id.';
COMMENT ON COLUMN items.group_id IS 'Its group: the WE-MATH problem ID, the ConceptMath system, the CMMaTH grade group.';
COMMENT ON COLUMN items.part IS 'Its part of a group: the WE-MATH key (2steps_1 .. 3steps_multi), the CMMaTH answer type.';
COMMENT ON COLUMN items.concept IS 'Its concept: a WE-MATH leaf ('';''-joined for composite questions), a ConceptMath path cate0/cate1/cate2, a CMMaTH knowledge point path.';
COMMENT ON COLUMN items.question IS 'The question text.';
COMMENT ON COLUMN items.gold IS 'The reference answer, as text.';
COMMENT ON COLUMN items.payload IS 'The source row as loaded (JSON): every field of the authors'' file.';

COMMENT ON TABLE item_chance IS 'The chance level of each item: the probability that a uniform guess in the benchmark''s answer format (what baseline:random answers) is graded right by its first grader; the mean over a figure''s items is that figure''s chance level.';
COMMENT ON COLUMN item_chance.benchmark IS 'The benchmark the item belongs to.';
COMMENT ON COLUMN item_chance.item_id IS 'The item (items.item_id).';
COMMENT ON COLUMN item_chance.chance IS 'The probability, in [0, 1] (e.g. 1/k for a question with k options and one right answer).';

COMMENT ON TABLE loaded_datasets IS 'Which version of each benchmark''s files the items table holds, so unchanged data is not reloaded.';
COMMENT ON COLUMN loaded_datasets.benchmark IS 'The benchmark.';
COMMENT ON COLUMN loaded_datasets.fingerprint IS 'Content hash of its data files.';
COMMENT ON COLUMN loaded_datasets.loaded_at IS 'When they were loaded (UTC).';

COMMENT ON TABLE responses IS 'Every answer a model gave, append-only: one row per attempt that reached the store (failures included).';
COMMENT ON COLUMN responses.response_id IS 'The response''s id (increasing).';
COMMENT ON COLUMN responses.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN responses.item_id IS 'The item answered (items.item_id).';
COMMENT ON COLUMN responses.request_hash IS 'Content hash of the exact request (model, params, prompt, image bytes): the cache and resume key.';
COMMENT ON COLUMN responses.response IS 'The model''s text; NULL when the call failed or an imported file had none.';
COMMENT ON COLUMN responses.status IS 'ok; refused (the model declined: graded wrong); missing (no response in an imported file: graded wrong); infra_failed (the call failed after its retries: never graded); judge_failed (a judge reply without a verdict); label_failed (an error labeller''s reply without a readable error type: no label).';
COMMENT ON COLUMN responses.error IS 'Why the call failed (API keys scrubbed).';
COMMENT ON COLUMN responses.attempts IS 'Attempts the call took (retries + 1).';
COMMENT ON COLUMN responses.latency_s IS 'Seconds from request to answer, in seconds.';
COMMENT ON COLUMN responses.input_tokens IS 'Prompt tokens billed.';
COMMENT ON COLUMN responses.output_tokens IS 'Completion tokens billed.';
COMMENT ON COLUMN responses.cost_usd IS 'Cost of the call in USD (NULL: no price known).';
COMMENT ON COLUMN responses.created_at IS 'When the row was written (UTC).';

COMMENT ON TABLE verdicts IS 'Per run, item and grader: the extracted answer and whether it is right; derived from responses, may be recomputed.';
COMMENT ON COLUMN verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN verdicts.item_id IS 'The item graded.';
COMMENT ON COLUMN verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN verdicts.response_id IS 'The response this verdict grades (responses.response_id).';
COMMENT ON COLUMN verdicts.extracted IS 'The answer the grader extracted from the response (NULL: none found).';
COMMENT ON COLUMN verdicts.correct IS 'Whether the extracted answer is right.';
COMMENT ON COLUMN verdicts.graded_at IS 'When it was graded (UTC).';

COMMENT ON TABLE token_logprobs IS 'Per-token log-probabilities where a backend returns them (Triton): generated tokens, or a scored prompt''s tokens (MIN-K%, option ranking).';
COMMENT ON COLUMN token_logprobs.response_id IS 'The response (responses.response_id).';
COMMENT ON COLUMN token_logprobs.position IS 'The token''s position, from 0.';
COMMENT ON COLUMN token_logprobs.token IS 'The token''s text.';
COMMENT ON COLUMN token_logprobs.token_id IS 'The token''s id in the model''s vocabulary.';
COMMENT ON COLUMN token_logprobs.logprob IS 'Its natural-log probability (<= 0).';
COMMENT ON COLUMN token_logprobs.kind IS 'generated (the answer''s tokens) or prompt (the scored text''s tokens).';

COMMENT ON TABLE probe_scores IS 'Per-item scores of probe runs computed outside SQL: Rouge-L of a continuation, the reciprocal rank of a classification.';
COMMENT ON COLUMN probe_scores.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN probe_scores.item_id IS 'The item probed.';
COMMENT ON COLUMN probe_scores.probe IS 'rouge_l or reciprocal_rank.';
COMMENT ON COLUMN probe_scores.score IS 'The score: Rouge-L F in [0, 1], or 1/rank of the true concept (0 when absent).';
COMMENT ON COLUMN probe_scores.detail IS 'What it was computed from (e.g. the parsed ranking).';

COMMENT ON VIEW current_responses IS 'Per run and item, the response that counts: the newest answer (ok, refused, missing), else the newest failure.';
COMMENT ON COLUMN current_responses.response_id IS 'The response''s id.';
COMMENT ON COLUMN current_responses.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN current_responses.item_id IS 'The item.';
COMMENT ON COLUMN current_responses.request_hash IS 'Content hash of the request.';
COMMENT ON COLUMN current_responses.response IS 'The model''s text (NULL for failures).';
COMMENT ON COLUMN current_responses.status IS 'ok, refused, missing, infra_failed or judge_failed.';
COMMENT ON COLUMN current_responses.error IS 'Why the call failed, if it did.';
COMMENT ON COLUMN current_responses.attempts IS 'Attempts the call took.';
COMMENT ON COLUMN current_responses.latency_s IS 'Seconds to answer.';
COMMENT ON COLUMN current_responses.input_tokens IS 'Prompt tokens.';
COMMENT ON COLUMN current_responses.output_tokens IS 'Completion tokens.';
COMMENT ON COLUMN current_responses.cost_usd IS 'Cost in USD.';
COMMENT ON COLUMN current_responses.created_at IS 'When it was written (UTC).';
COMMENT ON COLUMN current_responses.served_model IS 'The model the server reported for it (responses.served_model), where the API gives one.';

COMMENT ON VIEW item_verdicts IS 'Layer 1: one verdict per run, item and grader, on the response that counts; failed calls have none (never scored wrong).';
COMMENT ON COLUMN item_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN item_verdicts.benchmark IS 'The run''s benchmark.';
COMMENT ON COLUMN item_verdicts.item_id IS 'The item.';
COMMENT ON COLUMN item_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN item_verdicts.correct IS 'Whether the answer is right.';
COMMENT ON COLUMN item_verdicts.extracted IS 'The answer the grader extracted.';
COMMENT ON COLUMN item_verdicts.response_id IS 'The response graded.';

COMMENT ON VIEW run_summary IS 'What each run holds: responses by status, tokens and cost.';
COMMENT ON COLUMN run_summary.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN run_summary.benchmark IS 'The benchmark.';
COMMENT ON COLUMN run_summary.model IS 'BACKEND:NAME of the model.';
COMMENT ON COLUMN run_summary.backend IS 'The backend kind.';
COMMENT ON COLUMN run_summary.setting IS 'The prompt setting.';
COMMENT ON COLUMN run_summary.status IS 'The run''s status (runs.status).';
COMMENT ON COLUMN run_summary.n_items IS 'Items the run covers.';
COMMENT ON COLUMN run_summary.n_responses IS 'Items with a response that counts (answered or failed).';
COMMENT ON COLUMN run_summary.n_not_asked IS 'Items never asked (n_items - n_responses).';
COMMENT ON COLUMN run_summary.n_ok IS 'Answers with status ok.';
COMMENT ON COLUMN run_summary.n_missing IS 'Items an imported file had no response for (graded wrong).';
COMMENT ON COLUMN run_summary.n_infra_failed IS 'Calls that failed for good (never graded; --retry-failed re-asks them).';
COMMENT ON COLUMN run_summary.n_refused IS 'Answers the model refused (graded wrong).';
COMMENT ON COLUMN run_summary.n_judge_failed IS 'Judge replies without a verdict (judge runs only).';
COMMENT ON COLUMN run_summary.input_tokens IS 'Prompt tokens of the responses that count.';
COMMENT ON COLUMN run_summary.output_tokens IS 'Completion tokens of the responses that count.';
COMMENT ON COLUMN run_summary.cost_usd IS 'The run''s cost in USD.';
COMMENT ON COLUMN run_summary.started_at IS 'When it started (UTC).';
COMMENT ON COLUMN run_summary.finished_at IS 'When it finished (UTC).';

COMMENT ON VIEW item_figure_units IS 'Layer 4, the default for benchmarks that define no figures of their own: each graded item''s contribution to its run''s accuracy (cell all), for bootstrap intervals.';
COMMENT ON COLUMN item_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN item_figure_units.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe''s score).';
COMMENT ON COLUMN item_figure_units.unit IS 'The resampled unit: the item.';
COMMENT ON COLUMN item_figure_units.item IS 'The paired unit of a McNemar test: the item.';
COMMENT ON COLUMN item_figure_units.cell IS 'The figure''s cell: all (accuracy over all items).';
COMMENT ON COLUMN item_figure_units.num IS 'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).';
COMMENT ON COLUMN item_figure_units.den IS 'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).';

COMMENT ON TABLE run_data IS 'Per run, kept by every store write that changes the run: the span of its response ids (views join it in so a question about one run reads only its rows) and its data version (stored figures count only while computed at this version).';
COMMENT ON COLUMN run_data.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN run_data.first_response_id IS 'The smallest response id of the run: every response of the run lies between first_response_id and last_response_id.';
COMMENT ON COLUMN run_data.last_response_id IS 'The largest response id of the run.';
COMMENT ON COLUMN run_data.version IS 'The run''s data version: raised by every write of its responses, verdicts or probe scores.';
COMMENT ON COLUMN run_data.figures_version IS 'The version at which the run''s figures were stored (tables *_stored, e.g. wemath_step_accuracy_stored); they are shown only while it equals version, else computed live. NULL: none stored (cleared when the SQL layer or the loaded data changes).';
COMMENT ON VIEW stored_runs IS 'The runs whose stored figures are current (run_data.figures_version = version): figure views read their stored rows and compute only the other runs.';
COMMENT ON COLUMN stored_runs.run_id IS 'The run (runs.run_id).';
COMMENT ON VIEW live_run_spans IS 'Per run, the response ids a live figure must read: the run''s span while its stored figures are not current, else an empty span (so the live half of a figure view with stored rows reads nothing for it).';
COMMENT ON COLUMN live_run_spans.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN live_run_spans.first_response_id IS 'First response id to read (run_data.first_response_id, or past the last one when the run''s figures are stored).';
COMMENT ON COLUMN live_run_spans.last_response_id IS 'Last response id to read.';
