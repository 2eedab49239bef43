-- Which version of each benchmark's files `items` holds (content hash), so runs over
-- unchanged data skip re-loading it.
CREATE TABLE IF NOT EXISTS loaded_datasets (
    benchmark    VARCHAR PRIMARY KEY,
    fingerprint  VARCHAR NOT NULL,
    loaded_at    TIMESTAMP
);

COMMENT ON TABLE loaded_datasets IS $$Which version of each benchmark's files the items table holds, so unchanged data is not reloaded.$$;
COMMENT ON COLUMN loaded_datasets.benchmark IS $$The benchmark.$$;
COMMENT ON COLUMN loaded_datasets.fingerprint IS $$Content hash of its data files.$$;
COMMENT ON COLUMN loaded_datasets.loaded_at IS $$When they were loaded (UTC).$$;
