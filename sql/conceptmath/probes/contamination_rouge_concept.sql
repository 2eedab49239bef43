-- Paper Table 3 (Rouge) per concept: contamination_rouge for each system, level and concept
-- (concept = the official path). For a set of runs (sql/core/current/responses_of.sql: `runs`
-- names run_data or live_run_spans; a run whose span is empty there is stored, not live).
-- Stored per probe run: ~300 concept rows a run, read instead of re-joining every question to
-- its concepts.
CREATE OR REPLACE MACRO contamination_rouge_concept_of(runs) AS TABLE
SELECT s.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(s.score ORDER BY s.item_id)          AS rouge_l,
       100 * avg(s.score ORDER BY s.item_id)    AS rouge_l_x100
FROM probe_scores s
JOIN query_table(runs) d ON d.run_id = s.run_id AND d.first_response_id <= d.last_response_id
JOIN conceptmath_probe_item_concepts c ON c.run_id = s.run_id AND c.item_id = s.item_id
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, c.system, c.level, c.concept;
-- @stored contamination_rouge_concept

COMMENT ON VIEW contamination_rouge_concept IS $$Paper Table 3 (Rouge) per concept: mean Rouge-L F of the continuations, per system, level and concept.$$;
COMMENT ON COLUMN contamination_rouge_concept.system IS $$The system.$$;
COMMENT ON COLUMN contamination_rouge_concept.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN contamination_rouge_concept.concept IS $$The concept path.$$;
COMMENT ON COLUMN contamination_rouge_concept.n IS $$Questions continued.$$;
COMMENT ON COLUMN contamination_rouge_concept.rouge_l IS $$Mean Rouge-L F, a fraction.$$;
COMMENT ON COLUMN contamination_rouge_concept.rouge_l_x100 IS $$The same x100.$$;
