-- Why an answer is wrong: the error type a labeller gives each answer a run's grader called wrong
-- (`mathprobe errors`, docs/error-analysis.md), with the first wrong step it quotes. One row per
-- (run, item, labeller): several labellers side by side (a model, another model, a person's
-- sheet), never one replacing another. A label names the response it explains, so a label on an
-- answer since superseded (a retried call) counts nowhere (error_labels_current).
CREATE TABLE IF NOT EXISTS error_labels (
    run_id             VARCHAR NOT NULL,
    item_id            VARCHAR NOT NULL,
    labeler            VARCHAR NOT NULL,    -- BACKEND:NAME of a model, or a person's name
    response_id        BIGINT NOT NULL,     -- the answer labelled
    grader             VARCHAR NOT NULL,    -- the grader that called it wrong
    error_type         VARCHAR NOT NULL,    -- one of the benchmark's types (error_types)
    first_error        VARCHAR,             -- the first wrong step, quoted from the answer
    rationale          VARCHAR,             -- why that step is wrong
    source             VARCHAR NOT NULL,    -- rules | model | human
    label_response_id  BIGINT,              -- the labeller's reply (responses), for a model's
    labelled_at        TIMESTAMP,
    PRIMARY KEY (run_id, item_id, labeler)
);

COMMENT ON TABLE error_labels IS $$Why an answer is wrong: per run, item and labeller, the error type of the benchmark's taxonomy (error_types: the paper's types, e.g. WE-MATH Table 9, CMMaTH Fig. 6, ConceptMath Table 4) that a labeller gives an answer the run's grader called wrong, and the first wrong step it quotes. Written by mathprobe errors (rules, then a labeller model) and mathprobe errors import-sheet (people); several labellers side by side, never one replacing another.$$;
COMMENT ON COLUMN error_labels.run_id IS $$The run whose answer is labelled (runs.run_id).$$;
COMMENT ON COLUMN error_labels.item_id IS $$The item answered (items.item_id).$$;
COMMENT ON COLUMN error_labels.labeler IS $$Who labelled it: BACKEND:NAME of a labeller model (its calls are the run <run>@errors:<labeller>), or the name given to mathprobe errors import-sheet --labeler for a person's labels.$$;
COMMENT ON COLUMN error_labels.response_id IS $$The answer labelled (responses.response_id); a label on an answer no longer the one that counts is left out of every figure.$$;
COMMENT ON COLUMN error_labels.grader IS $$The grader whose wrong verdict the label explains (the run's report grader when it was labelled).$$;
COMMENT ON COLUMN error_labels.error_type IS $$The error type, named exactly as the paper names it (error_types.error_type); only the first error of an answer counts.$$;
COMMENT ON COLUMN error_labels.first_error IS $$The first wrong step of the answer, as the labeller quoted it; NULL where it quoted none (a label by rule).$$;
COMMENT ON COLUMN error_labels.rationale IS $$Why that step is wrong, in the labeller's words; for a label by rule, the rule.$$;
COMMENT ON COLUMN error_labels.source IS $$rules (decided without a labeller: a refusal or an empty answer), model (a labeller model's reply) or human (a labelling sheet).$$;
COMMENT ON COLUMN error_labels.label_response_id IS $$The labeller model's reply the label was read from (responses.response_id, in the run <run>@errors:<labeller>); NULL for rules and people.$$;
COMMENT ON COLUMN error_labels.labelled_at IS $$When the label was written (UTC).$$;