-- Paper Table 3 (Prob) per concept: contamination_mink for each system, level and concept
-- (concept = the official path), for a set of runs as contamination_rouge_concept; stored per
-- probe run like it.
CREATE OR REPLACE MACRO contamination_mink_concept_of(runs) AS TABLE
SELECT m.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(m.min_k ORDER BY m.item_id)          AS min_k,
       avg(m.min_k_prob ORDER BY m.item_id)     AS min_k_prob
FROM conceptmath_mink_items_of(runs) m
JOIN conceptmath_probe_item_concepts c ON c.run_id = m.run_id AND c.item_id = m.item_id
GROUP BY m.run_id, c.system, c.level, c.concept;
-- @stored contamination_mink_concept

COMMENT ON VIEW contamination_mink_concept IS $$Paper Table 3 (Prob) per concept: mean MIN-K% of the questions, per system, level and concept.$$;
COMMENT ON COLUMN contamination_mink_concept.system IS $$The system.$$;
COMMENT ON COLUMN contamination_mink_concept.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN contamination_mink_concept.concept IS $$The concept path.$$;
COMMENT ON COLUMN contamination_mink_concept.n IS $$Questions scored.$$;
COMMENT ON COLUMN contamination_mink_concept.min_k IS $$Mean MIN-K% as a mean log-probability (<= 0).$$;
COMMENT ON COLUMN contamination_mink_concept.min_k_prob IS $$Mean exp(MIN-K%), in (0, 1].$$;
