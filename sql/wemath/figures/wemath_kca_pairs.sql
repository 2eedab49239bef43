-- The pairs of Fig. 10 in a store: per model, its latest plain run and its latest KCA run.
CREATE OR REPLACE VIEW wemath_kca_pairs AS
WITH latest AS (
    SELECT model, setting, run_id
    FROM runs
    WHERE benchmark = 'wemath' AND setting IN ('plain', 'kca')
    QUALIFY row_number() OVER (PARTITION BY model, setting ORDER BY started_at DESC, run_id) = 1
)
SELECT p.model, p.run_id AS plain_run, k.run_id AS kca_run
FROM latest p JOIN latest k ON k.model = p.model AND k.setting = 'kca'
WHERE p.setting = 'plain';

COMMENT ON VIEW wemath_kca_pairs IS $$The runs of paper Fig. 10: per model, its latest plain run and its latest KCA (knowledge concept augmentation) run.$$;
COMMENT ON COLUMN wemath_kca_pairs.model IS $$The model.$$;
COMMENT ON COLUMN wemath_kca_pairs.plain_run IS $$Its latest run with setting plain.$$;
COMMENT ON COLUMN wemath_kca_pairs.kca_run IS $$Its latest run with setting kca.$$;
