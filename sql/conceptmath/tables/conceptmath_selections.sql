-- Training data selected for a run's weakest concepts (`mathprobe select-data`, paper Sec. 2.4):
-- one row per document written to the fine-tuning file, so a selection can be reproduced and
-- audited: which run and grader it answered, the concept, the document (its id in the corpus),
-- the classifier's score, and what it was selected from (the corpus named, its content hash,
-- the classifier's). Rows of the general set mixed in (--mix) have no concept and no score.
-- No column defaults (duckdb 1.5.5 cannot replay a comment on such a table from its WAL):
-- select-data writes every value.
CREATE TABLE IF NOT EXISTS conceptmath_selections (
    selection_id        VARCHAR NOT NULL,
    run_id              VARCHAR NOT NULL,
    grader              VARCHAR NOT NULL,
    system              VARCHAR,
    concept             VARCHAR,
    rank                INTEGER,
    source              VARCHAR NOT NULL,
    source_id           VARCHAR NOT NULL,
    score               DOUBLE,
    corpus              VARCHAR NOT NULL,
    corpus_fingerprint  VARCHAR NOT NULL,
    classifier          VARCHAR,
    params              JSON,
    out_file            VARCHAR,
    created_at          TIMESTAMP NOT NULL
);

COMMENT ON TABLE conceptmath_selections IS $$Training data selected for a run's weakest concepts (select-data, paper Sec. 2.4): one row per document written, with what it was selected from, so the selection can be reproduced.$$;
COMMENT ON COLUMN conceptmath_selections.selection_id IS $$One select-data call.$$;
COMMENT ON COLUMN conceptmath_selections.run_id IS $$The run whose weakest concepts were served (runs.run_id).$$;
COMMENT ON COLUMN conceptmath_selections.grader IS $$The grader whose verdicts ranked the concepts.$$;
COMMENT ON COLUMN conceptmath_selections.system IS $$The concept's system (element_en ...); NULL for a row of the general set.$$;
COMMENT ON COLUMN conceptmath_selections.concept IS $$The weak concept (level-3 path) the document was selected for; NULL for a row of the general set.$$;
COMMENT ON COLUMN conceptmath_selections.rank IS $$The document's place among its concept's, 1 = the highest score.$$;
COMMENT ON COLUMN conceptmath_selections.source IS $$corpus (selected by the classifier) or mix (the general set, --mix).$$;
COMMENT ON COLUMN conceptmath_selections.source_id IS $$The document's id in its file: its id field, else <file name>:<row>.$$;
COMMENT ON COLUMN conceptmath_selections.score IS $$The classifier's probability of the concept for the document.$$;
COMMENT ON COLUMN conceptmath_selections.corpus IS $$The corpus (or general set) as named: files, globs or URLs, comma-separated.$$;
COMMENT ON COLUMN conceptmath_selections.corpus_fingerprint IS $$Content hash of every (file, id, text) read from it.$$;
COMMENT ON COLUMN conceptmath_selections.classifier IS $$Fingerprint of the classifier: its training questions and settings.$$;
COMMENT ON COLUMN conceptmath_selections.params IS $$The call's options and counts (weakest, per_concept, thresholds, documents read, removed as overlapping the benchmark or near-duplicate).$$;
COMMENT ON COLUMN conceptmath_selections.out_file IS $$The fine-tuning file written.$$;
COMMENT ON COLUMN conceptmath_selections.created_at IS $$When select-data wrote it (UTC).$$;