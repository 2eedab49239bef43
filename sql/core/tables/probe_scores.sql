-- Per-item scores of probe runs that are computed outside SQL (e.g. Rouge-L of a
-- continuation, the reciprocal rank of a classification), one per (run, item, probe).
CREATE TABLE IF NOT EXISTS probe_scores (
    run_id    VARCHAR NOT NULL,
    item_id   VARCHAR NOT NULL,
    probe     VARCHAR NOT NULL,        -- rouge_l | reciprocal_rank
    score     DOUBLE NOT NULL,
    detail    VARCHAR,                 -- e.g. the parsed ranking
    PRIMARY KEY (run_id, item_id, probe)
);

COMMENT ON TABLE probe_scores IS $$Per-item scores of probe runs computed outside SQL: Rouge-L of a continuation, the reciprocal rank of a classification.$$;
COMMENT ON COLUMN probe_scores.item_id IS $$The item probed.$$;
COMMENT ON COLUMN probe_scores.probe IS $$rouge_l or reciprocal_rank.$$;
COMMENT ON COLUMN probe_scores.score IS $$The score: Rouge-L F in [0, 1], or 1/rank of the true concept (0 when absent).$$;
COMMENT ON COLUMN probe_scores.detail IS $$What it was computed from (e.g. the parsed ranking).$$;
