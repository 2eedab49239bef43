-- Layer 1: the response that counts and the verdicts that stand on it.

-- For each (run, item) the response that counts: the newest answer (`ok`, `refused` by the
-- model, or `missing` from an imported file) if any, otherwise the newest failure. Older
-- failures stay in `responses` as history.
CREATE OR REPLACE VIEW current_responses AS
SELECT *
FROM responses
QUALIFY row_number() OVER (
    PARTITION BY run_id, item_id
    ORDER BY (status IN ('ok', 'refused', 'missing')) DESC, response_id DESC
) = 1;

-- One verdict per (run, item, grader), only where it grades the response that counts, so a
-- verdict on a superseded response never reaches a metric. Failed calls (`infra_failed`) have
-- no verdict: they are never scored as wrong answers. A refusal is the model's answer: wrong.
CREATE OR REPLACE VIEW item_verdicts AS
SELECT v.run_id, r.benchmark, v.item_id, v.grader, v.correct, v.extracted, v.response_id
FROM verdicts v
JOIN current_responses c ON c.response_id = v.response_id
JOIN runs r ON r.run_id = v.run_id
WHERE c.status IN ('ok', 'refused', 'missing');

-- What a run holds: how many items answered, failed, missing, and what it cost.
CREATE OR REPLACE VIEW run_summary AS
SELECT r.run_id, r.benchmark, r.model, r.backend, r.setting, r.status, r.n_items,
       count(c.item_id)                                   AS n_responses,
       greatest(coalesce(r.n_items, 0) - count(c.item_id), 0) AS n_not_asked,
       count(*) FILTER (c.status = 'ok')                  AS n_ok,
       count(*) FILTER (c.status = 'missing')             AS n_missing,
       count(*) FILTER (c.status = 'infra_failed')        AS n_infra_failed,
       count(*) FILTER (c.status = 'refused')             AS n_refused,
       count(*) FILTER (c.status = 'judge_failed')        AS n_judge_failed,
       coalesce(sum(c.input_tokens), 0)                   AS input_tokens,
       coalesce(sum(c.output_tokens), 0)                  AS output_tokens,
       r.cost_usd,
       r.started_at, r.finished_at
FROM runs r
LEFT JOIN current_responses c ON c.run_id = r.run_id
GROUP BY r.run_id, r.benchmark, r.model, r.backend, r.setting, r.status, r.n_items, r.cost_usd,
         r.started_at, r.finished_at;
