-- The same per concept, at the three levels (concept = the official path).
CREATE OR REPLACE VIEW conceptmath_probe_item_concepts AS
SELECT p.run_id, p.item_id, p.system, l.level, l.concept
FROM conceptmath_probe_items p
CROSS JOIN LATERAL (VALUES (1, p.cate0), (2, p.cate0 || '/' || p.cate1),
                           (3, p.cate0 || '/' || p.cate1 || '/' || p.cate2)) AS l(level, concept);

COMMENT ON VIEW conceptmath_probe_item_concepts IS $$Each probed item under each of its three concept levels.$$;
COMMENT ON COLUMN conceptmath_probe_item_concepts.item_id IS $$The problem.$$;
COMMENT ON COLUMN conceptmath_probe_item_concepts.system IS $$Its system.$$;
COMMENT ON COLUMN conceptmath_probe_item_concepts.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN conceptmath_probe_item_concepts.concept IS $$The concept path at that level.$$;
