-- For each (run, item, sample) the response that counts, as current_response_ids chooses it for
-- an item: the newest answer (`ok`, `refused`, `missing`) if any, otherwise the newest failure.
-- A run of one sample has sample 0 only (responses.sample). Grouped per (run, item, sample), so
-- a filter on run_id (or on sample) reaches the scan of `responses` through the grouping.
CREATE OR REPLACE MACRO current_sample_response_ids_of(runs) AS TABLE
SELECT r.run_id, r.item_id, r.sample,
       max(r.response_id) FILTER (r.status IN ('ok', 'refused', 'missing')) AS answer_id,
       max(r.response_id)                                                  AS last_id
FROM responses_of(runs) r
GROUP BY r.run_id, r.item_id, r.sample;

CREATE OR REPLACE VIEW current_sample_response_ids AS
FROM current_sample_response_ids_of('run_data');

COMMENT ON VIEW current_sample_response_ids IS $$Per run, item and sample (responses.sample), the ids of its newest answer (answer_id: ok, refused or missing; NULL if none) and of its newest response of any status (last_id); the response that counts is answer_id if any, else last_id. current_response_ids is its sample 0.$$;
COMMENT ON COLUMN current_sample_response_ids.item_id IS $$The item (items.item_id).$$;
COMMENT ON COLUMN current_sample_response_ids.sample IS $$Which of the item's samples (0 .. runs.samples - 1).$$;
COMMENT ON COLUMN current_sample_response_ids.answer_id IS $$The newest response of this sample with an answer (ok, refused, missing); NULL when every call failed or was cut (truncated) so far.$$;
COMMENT ON COLUMN current_sample_response_ids.last_id IS $$The newest response of this sample, of any status.$$;
