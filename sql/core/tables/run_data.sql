-- Per run: the span of its response ids and a data version, both kept by the store's writes
-- (mathprobe/store/run_data.py) in the transaction that changes the run. The views join the span in,
-- so a question about one run reads only the row groups holding its responses (response ids
-- are a BIGINT zonemap a filter can prune; run_id strings with long common prefixes are not).
-- The figures stored per run (tables *_stored, e.g. wemath_step_accuracy_stored) count only
-- while figures_version = version; otherwise the figure views compute the run live.
CREATE TABLE IF NOT EXISTS run_data (
    run_id             VARCHAR PRIMARY KEY,
    first_response_id  BIGINT NOT NULL,
    last_response_id   BIGINT NOT NULL,
    version            BIGINT NOT NULL,    -- +1 at every write of the run's responses, verdicts, probe scores
    figures_version    BIGINT              -- the version its stored figures were computed at
);

COMMENT ON TABLE run_data IS $$Per run, kept by every store write that changes the run: the span of its response ids (views join it in so a question about one run reads only its rows) and its data version (stored figures count only while computed at this version).$$;
COMMENT ON COLUMN run_data.first_response_id IS $$The smallest response id of the run: every response of the run lies between first_response_id and last_response_id.$$;
COMMENT ON COLUMN run_data.last_response_id IS $$The largest response id of the run.$$;
COMMENT ON COLUMN run_data.version IS $$The run's data version: raised by every write of its responses, verdicts or probe scores.$$;
COMMENT ON COLUMN run_data.figures_version IS $$The version at which the run's figures were stored (tables *_stored, e.g. wemath_step_accuracy_stored); they are shown only while it equals version, else computed live. NULL: none stored (cleared when the SQL layer or the loaded data changes).$$;
