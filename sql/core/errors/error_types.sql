-- A benchmark's error taxonomy as its paper writes it (Benchmark.error_taxonomy): each type's name
-- and definition and where they are from, written when its runs are labelled, so the store
-- explains its labels and the distribution can show a type no answer has.
CREATE TABLE IF NOT EXISTS error_types (
    benchmark    VARCHAR NOT NULL,
    error_type   VARCHAR NOT NULL,
    position     INTEGER NOT NULL,      -- the paper's order (types mathprobe adds last)
    definition   VARCHAR NOT NULL,
    source       VARCHAR NOT NULL,      -- the paper and where in it; or who added the type
    by_rule      BOOLEAN NOT NULL,      -- the type a refusal or an empty answer gets by rule
    PRIMARY KEY (benchmark, error_type)
);

COMMENT ON TABLE error_types IS $$Each benchmark's error taxonomy as its paper writes it: the error types (WE-MATH Appendix E.2 Table 9; CMMaTH section 5.3 Fig. 6; ConceptMath Table 4), their definitions verbatim and the source; types mathprobe adds say so in source. Written when a run of the benchmark is labelled (mathprobe errors).$$;
COMMENT ON COLUMN error_types.benchmark IS $$The benchmark (its registered name).$$;
COMMENT ON COLUMN error_types.error_type IS $$The type's name, exactly as the paper writes it.$$;
COMMENT ON COLUMN error_types.position IS $$Its place in the paper's order, from 1 (types mathprobe adds come last).$$;
COMMENT ON COLUMN error_types.definition IS $$Its definition, verbatim from the paper (or, where the paper gives only examples, those examples).$$;
COMMENT ON COLUMN error_types.source IS $$Where the type and its definition are from: the paper and the section or table; for a type mathprobe adds, that.$$;
COMMENT ON COLUMN error_types.by_rule IS $$Whether a refusal or an empty answer gets this type by rule, without a labeller (CMMaTH's Reject Error).$$;