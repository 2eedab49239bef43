-- Layer 1: the response that counts and the verdicts that stand on it.

-- The runs whose stored figures are current: computed at the run's present data version.
CREATE OR REPLACE VIEW stored_runs AS
SELECT run_id FROM run_data WHERE figures_version = version;

-- Each layer below is a table macro over a set of runs, `runs`: the name of a table or view
-- with one row per run (run_id, first_response_id, last_response_id): `run_data` for every
-- run, or `live_run_spans` for the live half of a figure view that has stored rows (e.g.
-- wemath_step_accuracy). The view of the layer's name is the macro over run_data. Each run's
-- span of response ids is joined into the scan of `responses` (responses_of): a filter on
-- run_id then reads only the row groups of that span (DuckDB prunes a scan by the smallest
-- first and largest last id it is joined with); the scans joined to those responses by id
-- (the response that counts, its verdicts, its token log-probabilities) are pruned the same way
-- by the ids found.

-- Per run, the responses a live figure must read: its span while its stored figures are not
-- current; otherwise an empty span at the newest id (newest .. newest - 1), so a scan for it,
-- or for a store whose figures are all stored, reads at most the last row group (a run left
-- out instead would leave the scan unpruned).
-- (The newest id from one subquery joined in: cheaper to plan than one per column, and every
-- live figure view plans this view.)
CREATE OR REPLACE VIEW live_run_spans AS
SELECT d.run_id,
       CASE WHEN d.figures_version IS DISTINCT FROM d.version THEN d.first_response_id
            ELSE n.newest END                                              AS first_response_id,
       CASE WHEN d.figures_version IS DISTINCT FROM d.version THEN d.last_response_id
            ELSE n.newest - 1 END                                          AS last_response_id
FROM run_data d
CROSS JOIN (SELECT max(last_response_id) AS newest FROM run_data) n;

-- The responses of the runs.
CREATE OR REPLACE MACRO responses_of(runs) AS TABLE
SELECT r.*
FROM responses r
JOIN query_table(runs) d
  ON d.run_id = r.run_id AND r.response_id BETWEEN d.first_response_id AND d.last_response_id;

-- For each (run, item) the response that counts: the newest answer (`ok`, `refused` by the
-- model, or `missing` from an imported file) if any, otherwise the newest failure: a failed
-- call (`infra_failed`) or a reply cut at the token cap before its answer (`truncated`), never
-- graded. Older failures stay in `responses` as history.
-- First its id, grouped per (run, item): a filter on run_id reaches the scan of `responses`
-- through the grouping (a window over all responses, or a join on response_id alone, would
-- read every run's rows for a question about one run).
CREATE OR REPLACE MACRO current_response_ids_of(runs) AS TABLE
SELECT r.run_id, r.item_id,
       max(r.response_id) FILTER (r.status IN ('ok', 'refused', 'missing')) AS answer_id,
       max(r.response_id)                                                  AS last_id
FROM responses_of(runs) r
GROUP BY r.run_id, r.item_id;

CREATE OR REPLACE VIEW current_response_ids AS
FROM current_response_ids_of('run_data');

COMMENT ON VIEW current_response_ids IS 'Per run and item, the ids of its newest answer (answer_id: ok, refused or missing; NULL if it has none) and of its newest response of any status (last_id: e.g. infra_failed, truncated); the response that counts is answer_id if any, else last_id (current_responses).';
COMMENT ON COLUMN current_response_ids.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN current_response_ids.item_id IS 'The item (items.item_id).';
COMMENT ON COLUMN current_response_ids.answer_id IS 'The newest response with an answer (ok, refused, missing); NULL when every call failed or was cut (truncated) so far.';
COMMENT ON COLUMN current_response_ids.last_id IS 'The newest response of any status.';

CREATE OR REPLACE MACRO current_responses_of(runs) AS TABLE
SELECT r.*
FROM responses r
JOIN current_response_ids_of(runs) k
  ON k.run_id = r.run_id AND k.item_id = r.item_id
 AND r.response_id = coalesce(k.answer_id, k.last_id);

CREATE OR REPLACE VIEW current_responses AS
FROM current_responses_of('run_data');

-- One verdict per (run, item, grader), only where it grades the response that counts, so a
-- verdict on a superseded response never reaches a metric. Failed calls (`infra_failed`) and
-- replies cut before their answer (`truncated`) have no verdict: they are never scored as wrong
-- answers. A refusal is the model's answer: wrong.
-- (The response that counts is an answer exactly when the item has one: answer_id.)
-- A verdict is found by the response it grades (its id, unique in the store, names the run:
-- Store.write_verdicts refuses a verdict on another run's response), not by its run_id: a
-- condition on verdicts.run_id would be pushed into the scan of verdicts, which for a run with
-- nothing to join (all its figures stored, or of another benchmark) then reads the whole table
-- looking for that run's rows; joined by response id the scan is pruned to the ids found, and
-- stops at its first rows when none are.
CREATE OR REPLACE MACRO item_verdicts_of(runs) AS TABLE
SELECT k.run_id, r.benchmark, v.item_id, v.grader, v.correct, v.extracted, v.response_id
FROM verdicts v
JOIN current_response_ids_of(runs) k ON k.item_id = v.item_id AND k.answer_id = v.response_id
JOIN runs r ON r.run_id = k.run_id;

CREATE OR REPLACE VIEW item_verdicts AS
FROM item_verdicts_of('run_data');

-- What a run holds: how many items answered, failed, cut, missing, and what it cost.
CREATE OR REPLACE VIEW run_summary AS
SELECT r.run_id, r.benchmark, r.model, r.backend, r.setting, r.status, r.n_items,
       count(c.item_id)                                   AS n_responses,
       greatest(coalesce(r.n_items, 0) - count(c.item_id), 0) AS n_not_asked,
       count(*) FILTER (c.status = 'ok')                  AS n_ok,
       count(*) FILTER (c.status = 'missing')             AS n_missing,
       count(*) FILTER (c.status = 'infra_failed')        AS n_infra_failed,
       count(*) FILTER (c.status = 'refused')             AS n_refused,
       count(*) FILTER (c.status = 'judge_failed')        AS n_judge_failed,
       count(*) FILTER (c.status = 'truncated')           AS n_truncated,
       coalesce(sum(c.input_tokens), 0)                   AS input_tokens,
       coalesce(sum(c.output_tokens), 0)                  AS output_tokens,
       sum(c.reasoning_tokens)                            AS reasoning_tokens,
       r.cost_usd,
       r.started_at, r.finished_at
FROM runs r
LEFT JOIN current_responses c ON c.run_id = r.run_id
GROUP BY r.run_id, r.benchmark, r.model, r.backend, r.setting, r.status, r.n_items, r.cost_usd,
         r.started_at, r.finished_at;
