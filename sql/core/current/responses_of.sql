-- Layer 1 (sql/core/current/): the response that counts and the verdicts that stand on it.
--
-- Each layer is a table macro over a set of runs, `runs`: the name of a table or view with one
-- row per run (run_id, first_response_id, last_response_id): `run_data` for every run, or
-- `live_run_spans` for the live half of a figure view that has stored rows (e.g.
-- wemath_step_accuracy). The view of the layer's name is the macro over run_data. Each run's
-- span of response ids is joined into the scan of `responses` (here): a filter on run_id then
-- reads only the row groups of that span (DuckDB prunes a scan by the smallest first and
-- largest last id it is joined with); the scans joined to those responses by id (the response
-- that counts, its verdicts, its token log-probabilities) are pruned the same way by the ids
-- found.

-- The responses of the runs.
CREATE OR REPLACE MACRO responses_of(runs) AS TABLE
SELECT r.*
FROM responses r
JOIN query_table(runs) d
  ON d.run_id = r.run_id AND r.response_id BETWEEN d.first_response_id AND d.last_response_id;
