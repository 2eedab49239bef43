-- One verdict per run, item, sample and grader; the views keep only those on the response
-- that counts (item_verdicts: sample 0; sample_verdicts: every sample).
CREATE TABLE IF NOT EXISTS verdicts (
    run_id       VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    grader       VARCHAR NOT NULL,
    response_id  BIGINT NOT NULL,            -- the response this verdict grades
    extracted    VARCHAR,
    correct      BOOLEAN NOT NULL,
    graded_at    TIMESTAMP DEFAULT current_timestamp,
    sample       INTEGER NOT NULL DEFAULT 0, -- the graded response's sample (responses.sample)
    PRIMARY KEY (run_id, item_id, sample, grader)
);

-- A lake (no keys) made before samples gets the column here; a DuckDB file made before them
-- has its table rebuilt under the new key first (mathprobe/store/upgrades.py).
ALTER TABLE verdicts ADD COLUMN IF NOT EXISTS sample INTEGER DEFAULT 0;

COMMENT ON TABLE verdicts IS $$Per run, item, sample and grader: the extracted answer and whether it is right; derived from responses, may be recomputed.$$;
COMMENT ON COLUMN verdicts.item_id IS $$The item graded.$$;
COMMENT ON COLUMN verdicts.response_id IS $$The response this verdict grades (responses.response_id).$$;
COMMENT ON COLUMN verdicts.extracted IS $$The answer the grader extracted from the response (NULL: none found).$$;
COMMENT ON COLUMN verdicts.correct IS $$Whether the extracted answer is right.$$;
COMMENT ON COLUMN verdicts.graded_at IS $$When it was graded (UTC).$$;
COMMENT ON COLUMN verdicts.sample IS $$The sample of the graded response (responses.sample; 0 for a run of one sample).$$;
