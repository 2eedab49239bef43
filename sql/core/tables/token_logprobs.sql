-- Per-token log-probabilities, where a backend returns them.
CREATE TABLE IF NOT EXISTS token_logprobs (
    response_id  BIGINT NOT NULL,
    position     INTEGER NOT NULL,
    token        VARCHAR,
    token_id     BIGINT,
    logprob      DOUBLE NOT NULL,
    kind         VARCHAR NOT NULL,          -- generated | prompt
    PRIMARY KEY (response_id, kind, position)
);

COMMENT ON TABLE token_logprobs IS $$Per-token log-probabilities where a backend returns them (Triton): generated tokens, or a scored prompt's tokens (MIN-K%, option ranking).$$;
COMMENT ON COLUMN token_logprobs.response_id IS $$The response (responses.response_id).$$;
COMMENT ON COLUMN token_logprobs.position IS $$The token's position, from 0.$$;
COMMENT ON COLUMN token_logprobs.token IS $$The token's text.$$;
COMMENT ON COLUMN token_logprobs.token_id IS $$The token's id in the model's vocabulary.$$;
COMMENT ON COLUMN token_logprobs.logprob IS $$Its natural-log probability (<= 0).$$;
COMMENT ON COLUMN token_logprobs.kind IS $$generated (the answer's tokens) or prompt (the scored text's tokens).$$;
