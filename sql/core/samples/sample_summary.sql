-- What a run asked with --samples K holds of its samples: per run, the (item, sample) pairs
-- with a response that counts, by status, and the pairs not asked yet. run_summary counts the
-- first sample (what the paper's figures read); this counts them all. Only runs of K > 1.
CREATE OR REPLACE VIEW sample_summary AS
SELECT r.run_id, r.samples,
       coalesce(r.n_items, 0) * r.samples                     AS n_pairs,
       count(c.item_id)                                       AS n_responses,
       greatest(coalesce(r.n_items, 0) * r.samples - count(c.item_id), 0) AS n_not_asked,
       count(*) FILTER (c.status = 'ok')                      AS n_ok,
       count(*) FILTER (c.status = 'refused')                 AS n_refused,
       count(*) FILTER (c.status = 'infra_failed')            AS n_infra_failed,
       count(*) FILTER (c.status = 'truncated')               AS n_truncated,
       count(DISTINCT c.sample)                               AS n_samples_begun
FROM runs r
LEFT JOIN current_sample_responses c ON c.run_id = r.run_id
WHERE r.samples > 1
GROUP BY r.run_id, r.samples, r.n_items;

COMMENT ON VIEW sample_summary IS $$Per run asked more than one sample of each item (--samples K): its (item, sample) pairs by the status of the response that counts, and those not asked yet (run_summary counts sample 0 only).$$;
COMMENT ON COLUMN sample_summary.samples IS $$K: answers asked of each item (runs.samples).$$;
COMMENT ON COLUMN sample_summary.n_pairs IS $$Items x samples: the answers the run asks for.$$;
COMMENT ON COLUMN sample_summary.n_responses IS $$Pairs with a response that counts (answered or failed).$$;
COMMENT ON COLUMN sample_summary.n_not_asked IS $$Pairs never asked (n_pairs - n_responses): --max-cost stopped, or the run was interrupted.$$;
COMMENT ON COLUMN sample_summary.n_ok IS $$Answers with status ok, over all samples.$$;
COMMENT ON COLUMN sample_summary.n_refused IS $$Answers the model refused (graded wrong), over all samples.$$;
COMMENT ON COLUMN sample_summary.n_infra_failed IS $$Calls that failed for good, over all samples (never graded; --retry-failed asks them again).$$;
COMMENT ON COLUMN sample_summary.n_truncated IS $$Replies cut at the token cap before their answer, over all samples (never graded; --retry-failed or a larger --max-tokens asks them again).$$;
COMMENT ON COLUMN sample_summary.n_samples_begun IS $$How many of the K samples have any response.$$;
