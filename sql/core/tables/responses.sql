-- Every answer a model gave, append-only: one row per attempt (failures included). The
-- response that counts for an item is chosen by the views (current_responses).
CREATE TABLE IF NOT EXISTS responses (
    response_id   BIGINT PRIMARY KEY DEFAULT nextval('response_seq'),
    run_id        VARCHAR NOT NULL,
    item_id       VARCHAR NOT NULL,
    request_hash  VARCHAR NOT NULL,         -- content hash of model, params, prompt, image bytes
    response      VARCHAR,                  -- NULL when the call failed or the source had none
    status        VARCHAR NOT NULL,         -- ok | infra_failed | refused | missing | truncated
    error         VARCHAR,
    attempts      INTEGER DEFAULT 1,
    latency_s     DOUBLE,
    input_tokens  BIGINT,
    output_tokens BIGINT,
    cost_usd      DOUBLE,
    created_at    TIMESTAMP DEFAULT current_timestamp
);

-- The model the server says answered (the `model` field of an OpenAI or Anthropic response,
-- e.g. a dated snapshot behind an alias), where the API gives one.
ALTER TABLE responses ADD COLUMN IF NOT EXISTS served_model VARCHAR;

-- A reasoning model's reasoning, apart from its answer (`response`, what graders and judges
-- see), and the tokens it took where the API reports them (mathprobe/backends/reasoning.py).
ALTER TABLE responses ADD COLUMN IF NOT EXISTS reasoning VARCHAR;
ALTER TABLE responses ADD COLUMN IF NOT EXISTS reasoning_tokens BIGINT;

-- Which of the item's repeated samples the response answers (--samples K: 0 .. K-1); 0 for a
-- run of one sample, and for every response stored before samples existed. The response that
-- counts is chosen per (run, item, sample) (current_sample_response_ids); the paper's figures
-- read sample 0 (current_response_ids).
ALTER TABLE responses ADD COLUMN IF NOT EXISTS sample INTEGER DEFAULT 0;

COMMENT ON TABLE responses IS $$Every answer a model gave, append-only: one row per attempt that reached the store (failures included).$$;
COMMENT ON COLUMN responses.response_id IS $$The response's id (increasing).$$;
COMMENT ON COLUMN responses.item_id IS $$The item answered (items.item_id).$$;
COMMENT ON COLUMN responses.request_hash IS $$Content hash of the exact request (model, params, prompt, image bytes): the cache and resume key.$$;
COMMENT ON COLUMN responses.response IS $$The model's answer, what graders and judges read (a reasoning model's reasoning is apart, in reasoning); NULL when the call failed or an imported file had none.$$;
COMMENT ON COLUMN responses.status IS $$ok; refused (the model declined: graded wrong); missing (no response in an imported file: graded wrong); infra_failed (the call failed after its retries: never graded); truncated (the reply stopped at the token cap inside its reasoning or before its answer: never graded, re-asked by --retry-failed or a larger --max-tokens); judge_failed (a judge reply without a verdict); label_failed (an error labeller's reply without a readable error type: no label).$$;
COMMENT ON COLUMN responses.error IS $$Why the call failed (API keys scrubbed).$$;
COMMENT ON COLUMN responses.attempts IS $$Attempts the call took (retries + 1).$$;
COMMENT ON COLUMN responses.latency_s IS $$Seconds from request to answer, in seconds.$$;
COMMENT ON COLUMN responses.input_tokens IS $$Prompt tokens billed.$$;
COMMENT ON COLUMN responses.output_tokens IS $$Completion tokens billed.$$;
COMMENT ON COLUMN responses.cost_usd IS $$Cost of the call in USD (NULL: no price known).$$;
COMMENT ON COLUMN responses.created_at IS $$When the row was written (UTC).$$;
COMMENT ON COLUMN responses.served_model IS $$The model the server reported for this response (an OpenAI or Anthropic response's model field, e.g. the dated snapshot behind an alias); NULL where the API gives none or for responses stored before it was recorded.$$;
COMMENT ON COLUMN responses.reasoning IS $$A reasoning model's reasoning, stored apart from its answer (response): OpenAI-compatible servers' reasoning_content, a leading <think>...</think> block, or Anthropic's thinking blocks; never graded. NULL where the reply showed none (OpenAI's o-series and gpt-5 keep theirs hidden: see reasoning_tokens).$$;
COMMENT ON COLUMN responses.reasoning_tokens IS $$Tokens the model spent reasoning, as the API reports them (OpenAI usage.completion_tokens_details.reasoning_tokens; Anthropic usage.output_tokens_details.thinking_tokens where given); they are part of output_tokens and priced as output. NULL where the API does not say (vLLM, SGLang, Anthropic without the breakdown).$$;
COMMENT ON COLUMN responses.sample IS $$Which of the item's repeated samples this answers (--samples K: 0 .. K-1; part of the request's content hash from 1 on, and sent as the request's seed where the backend takes one); 0 for a run of one sample. The paper's figures read sample 0; the sampled figures (pass@k, maj@k, sampled_figure_units) every sample.$$;
