-- What a run holds: how many items answered, failed, cut, missing, and what it cost. An item
-- asked --samples K times counts its first sample here (sample_summary counts them all).
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
       r.started_at, r.finished_at,
       coalesce(r.samples, 1)                             AS samples
FROM runs r
LEFT JOIN current_responses c ON c.run_id = r.run_id
GROUP BY r.run_id, r.benchmark, r.model, r.backend, r.setting, r.status, r.n_items, r.cost_usd,
         r.started_at, r.finished_at, r.samples;

COMMENT ON VIEW run_summary IS $$What each run holds: responses by status (answered, failed, cut at the token cap), tokens and cost.$$;
COMMENT ON COLUMN run_summary.benchmark IS $$The benchmark.$$;
COMMENT ON COLUMN run_summary.model IS $$BACKEND:NAME of the model.$$;
COMMENT ON COLUMN run_summary.backend IS $$The backend kind.$$;
COMMENT ON COLUMN run_summary.setting IS $$The prompt setting.$$;
COMMENT ON COLUMN run_summary.status IS $$The run's status (runs.status).$$;
COMMENT ON COLUMN run_summary.n_items IS $$Items the run covers.$$;
COMMENT ON COLUMN run_summary.n_responses IS $$Items with a response that counts (answered or failed).$$;
COMMENT ON COLUMN run_summary.n_not_asked IS $$Items never asked (n_items - n_responses).$$;
COMMENT ON COLUMN run_summary.n_ok IS $$Answers with status ok.$$;
COMMENT ON COLUMN run_summary.n_missing IS $$Items an imported file had no response for (graded wrong).$$;
COMMENT ON COLUMN run_summary.n_infra_failed IS $$Calls that failed for good (never graded; --retry-failed re-asks them).$$;
COMMENT ON COLUMN run_summary.n_refused IS $$Answers the model refused (graded wrong).$$;
COMMENT ON COLUMN run_summary.n_judge_failed IS $$Judge replies without a verdict (judge runs only).$$;
COMMENT ON COLUMN run_summary.n_truncated IS $$Replies cut at the token cap inside their reasoning or before their answer (never graded; a larger --max-tokens or --retry-failed re-asks them).$$;
COMMENT ON COLUMN run_summary.reasoning_tokens IS $$Reasoning tokens of the responses that count, where the API reports them (part of output_tokens); NULL where none does.$$;
COMMENT ON COLUMN run_summary.input_tokens IS $$Prompt tokens of the responses that count.$$;
COMMENT ON COLUMN run_summary.output_tokens IS $$Completion tokens of the responses that count.$$;
COMMENT ON COLUMN run_summary.cost_usd IS $$The run's cost in USD.$$;
COMMENT ON COLUMN run_summary.started_at IS $$When it started (UTC).$$;
COMMENT ON COLUMN run_summary.finished_at IS $$When it finished (UTC).$$;
COMMENT ON COLUMN run_summary.samples IS $$Answers asked of each item (--samples K; runs.samples); the counts above are of the first sample, sample_summary has every sample's.$$;
