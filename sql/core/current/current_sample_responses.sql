-- Per run, item and sample, the response that counts (its id: current_sample_response_ids):
-- what a run asked with --samples K holds for each of the K samples of an item.
CREATE OR REPLACE MACRO current_sample_responses_of(runs) AS TABLE
SELECT r.*
FROM responses r
JOIN current_sample_response_ids_of(runs) k
  ON k.run_id = r.run_id AND k.item_id = r.item_id AND k.sample = r.sample
 AND r.response_id = coalesce(k.answer_id, k.last_id);

CREATE OR REPLACE VIEW current_sample_responses AS
FROM current_sample_responses_of('run_data');

COMMENT ON VIEW current_sample_responses IS $$Per run, item and sample, the response that counts: the newest answer (ok, refused, missing), else the newest failure (current_responses is its sample 0).$$;
COMMENT ON COLUMN current_sample_responses.response_id IS $$The response's id.$$;
COMMENT ON COLUMN current_sample_responses.item_id IS $$The item.$$;
COMMENT ON COLUMN current_sample_responses.request_hash IS $$Content hash of the request (the sample index is in it from sample 1 on).$$;
COMMENT ON COLUMN current_sample_responses.response IS $$The model's answer, its reasoning apart (NULL for failures).$$;
COMMENT ON COLUMN current_sample_responses.status IS $$ok, refused, missing, infra_failed or truncated.$$;
COMMENT ON COLUMN current_sample_responses.error IS $$Why the call failed, if it did.$$;
COMMENT ON COLUMN current_sample_responses.attempts IS $$Attempts the call took.$$;
COMMENT ON COLUMN current_sample_responses.latency_s IS $$Seconds to answer.$$;
COMMENT ON COLUMN current_sample_responses.input_tokens IS $$Prompt tokens.$$;
COMMENT ON COLUMN current_sample_responses.output_tokens IS $$Completion tokens.$$;
COMMENT ON COLUMN current_sample_responses.cost_usd IS $$Cost in USD.$$;
COMMENT ON COLUMN current_sample_responses.created_at IS $$When it was written (UTC).$$;
COMMENT ON COLUMN current_sample_responses.served_model IS $$The model the server reported for it (responses.served_model), where the API gives one.$$;
COMMENT ON COLUMN current_sample_responses.reasoning IS $$The model's reasoning, apart from its answer (responses.reasoning).$$;
COMMENT ON COLUMN current_sample_responses.reasoning_tokens IS $$Tokens spent reasoning, where the API says (responses.reasoning_tokens; part of output_tokens).$$;
