-- For each (run, item) the response that counts: the newest answer (`ok`, `refused` by the
-- model, or `missing` from an imported file) if any, otherwise the newest failure. Older
-- failures stay in `responses` as history. An item asked several times (--samples K) counts
-- its first sample here (sample 0): every figure of the papers reads it, and a run of one
-- sample has no other (current_sample_response_ids chooses per sample; its grouping carries
-- the filter on run_id, and this one on sample, down to the scan of `responses`: a window over
-- all responses, or a join on response_id alone, would read every run's rows for a question
-- about one run).
CREATE OR REPLACE MACRO current_response_ids_of(runs) AS TABLE
SELECT k.run_id, k.item_id, k.answer_id, k.last_id
FROM current_sample_response_ids_of(runs) k
WHERE k.sample = 0;

CREATE OR REPLACE VIEW current_response_ids AS
FROM current_response_ids_of('run_data');

COMMENT ON VIEW current_response_ids IS $$Per run and item, the ids of its newest answer (answer_id: ok, refused or missing; NULL if it has none) and of its newest response of any status (last_id: e.g. infra_failed, truncated), of its first sample (sample 0: what the paper's figures read); the response that counts is answer_id if any, else last_id (current_responses).$$;
COMMENT ON COLUMN current_response_ids.item_id IS $$The item (items.item_id).$$;
COMMENT ON COLUMN current_response_ids.answer_id IS $$The newest response with an answer (ok, refused, missing); NULL when every call failed or was cut (truncated) so far.$$;
COMMENT ON COLUMN current_response_ids.last_id IS $$The newest response of any status.$$;
