-- Concept accuracy at the three levels of the hierarchy (the authors' per-concept metric:
-- right / count over the problems under the concept).
CREATE OR REPLACE MACRO conceptmath_concept_accuracy_of(runs) AS TABLE
SELECT v.run_id, v.grader, v.system, l.level, l.concept,
       count(*)                 AS n,
       n_correct(v.correct)     AS correct,
       accuracy_of(v.correct)   AS accuracy
FROM conceptmath_item_verdicts_of(runs) v
CROSS JOIN LATERAL (VALUES (1, v.cate0),                      -- each problem at each level
                           (2, v.cate0 || '/' || v.cate1),
                           (3, v.cate0 || '/' || v.cate1 || '/' || v.cate2)) AS l(level, concept)
GROUP BY v.run_id, v.grader, v.system, l.level, l.concept;
-- Stored per run (mathprobe/store/stored_sql.py): a run's ~600 concept rows (and
-- conceptmath_unmastered's ranking of them) are read, not recomputed from its verdicts, while
-- its data is unchanged.
-- @stored conceptmath_concept_accuracy

COMMENT ON VIEW conceptmath_concept_accuracy IS $$Concept accuracy at the three levels of the hierarchy, per system (the authors' per-concept metric).$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.concept IS $$The concept path: cate0, cate0/cate1 or cate0/cate1/cate2.$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.n IS $$Graded problems under it.$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.correct IS $$Right answers.$$;
COMMENT ON COLUMN conceptmath_concept_accuracy.accuracy IS $$correct / n, a fraction.$$;
