-- Paper Table 3, per system: mean Rouge-L F of the continuations (as a fraction, and x100 as the
-- paper prints it); mean MIN-K% (as a mean log-probability, and on the probability scale).
CREATE OR REPLACE VIEW contamination_rouge AS
SELECT s.run_id, p.system, count(*) AS n,
       avg(s.score ORDER BY s.item_id)          AS rouge_l,
       100 * avg(s.score ORDER BY s.item_id)    AS rouge_l_x100
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, p.system;

COMMENT ON VIEW contamination_rouge IS $$Paper Table 3 (Rouge): mean Rouge-L F of the continuations of the questions' first halves, per system.$$;
COMMENT ON COLUMN contamination_rouge.rouge_l IS $$Mean Rouge-L F-measure, a fraction in [0, 1].$$;
COMMENT ON COLUMN contamination_rouge.rouge_l_x100 IS $$The same x100, as the paper's Table 3 prints it.$$;
COMMENT ON COLUMN contamination_rouge.system IS $$The system.$$;
COMMENT ON COLUMN contamination_rouge.n IS $$Questions continued.$$;
