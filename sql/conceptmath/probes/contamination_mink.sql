CREATE OR REPLACE VIEW contamination_mink AS
SELECT m.run_id, p.system, count(*) AS n,
       avg(m.min_k ORDER BY m.item_id)          AS min_k,
       avg(m.min_k_prob ORDER BY m.item_id)     AS min_k_prob
FROM conceptmath_mink_items m JOIN conceptmath_probe_items p USING (run_id, item_id)
GROUP BY m.run_id, p.system;

COMMENT ON VIEW contamination_mink IS $$Paper Table 3 (Prob): mean MIN-K% of the questions, per system.$$;
COMMENT ON COLUMN contamination_mink.min_k IS $$Mean over questions of MIN-K% as a mean log-probability (<= 0).$$;
COMMENT ON COLUMN contamination_mink.min_k_prob IS $$Mean over questions of exp(MIN-K%), on the probability scale (0, 1].$$;
COMMENT ON COLUMN contamination_mink.system IS $$The system.$$;
COMMENT ON COLUMN contamination_mink.n IS $$Questions scored.$$;
