-- Paper Tables 6/8/9: concept classification per system. MRR = mean reciprocal rank of the
-- true level-2 concept in the model's ranking (0 when absent); top-1 = share ranked first. Open
-- models rank the concepts, listed as options A, B, ..., by the likelihood of each label; API
-- models reply with a ranked list.
CREATE OR REPLACE VIEW conceptmath_classification AS
SELECT s.run_id, p.system, count(*) AS n,
       avg(s.score ORDER BY s.item_id)            AS mrr,
       count(*) FILTER (s.score = 1.0) / count(*) AS top1
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'reciprocal_rank'
GROUP BY s.run_id, p.system;

COMMENT ON VIEW conceptmath_classification IS $$Paper Tables 6/8/9: concept classification per system: MRR and top-1 of the true level-2 concept.$$;
COMMENT ON COLUMN conceptmath_classification.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_classification.n IS $$Questions classified.$$;
COMMENT ON COLUMN conceptmath_classification.mrr IS $$Mean reciprocal rank of the true concept (0 when absent from the ranking).$$;
COMMENT ON COLUMN conceptmath_classification.top1 IS $$Share ranked first, a fraction.$$;
