-- One verdict per run, item and grader; the views keep only those on the response that
-- counts (item_verdicts).
CREATE TABLE IF NOT EXISTS verdicts (
    run_id       VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    grader       VARCHAR NOT NULL,
    response_id  BIGINT NOT NULL,            -- the response this verdict grades
    extracted    VARCHAR,
    correct      BOOLEAN NOT NULL,
    graded_at    TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, grader)
);

COMMENT ON TABLE verdicts IS $$Per run, item and grader: the extracted answer and whether it is right; derived from responses, may be recomputed.$$;
COMMENT ON COLUMN verdicts.item_id IS $$The item graded.$$;
COMMENT ON COLUMN verdicts.response_id IS $$The response this verdict grades (responses.response_id).$$;
COMMENT ON COLUMN verdicts.extracted IS $$The answer the grader extracted from the response (NULL: none found).$$;
COMMENT ON COLUMN verdicts.correct IS $$Whether the extracted answer is right.$$;
COMMENT ON COLUMN verdicts.graded_at IS $$When it was graded (UTC).$$;
