-- ConceptMath probes (paper Sec. 4.3): contamination and concept classification.
-- Per-item scores computed outside SQL (Rouge-L, reciprocal rank) land in probe_scores;
-- MIN-K% is computed here from the scored questions' token log-probabilities.

-- The items a probe run covers, with their system and concept path (levels 1..3).
CREATE OR REPLACE VIEW conceptmath_probe_items AS
SELECT r.run_id, i.item_id, i.system, i.cate0, i.cate1, i.cate2
FROM runs r
CROSS JOIN conceptmath_items i
WHERE r.benchmark = 'conceptmath';

COMMENT ON VIEW conceptmath_probe_items IS $$The items a ConceptMath probe run covers, with system and concept path.$$;
COMMENT ON COLUMN conceptmath_probe_items.item_id IS $$The problem.$$;
COMMENT ON COLUMN conceptmath_probe_items.system IS $$Its system.$$;
COMMENT ON COLUMN conceptmath_probe_items.cate0 IS $$Level 1 of its path.$$;
COMMENT ON COLUMN conceptmath_probe_items.cate1 IS $$Level 2.$$;
COMMENT ON COLUMN conceptmath_probe_items.cate2 IS $$Level 3.$$;
