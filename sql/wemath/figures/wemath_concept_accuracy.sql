-- Accuracy of the one-step questions labelled with each of the 67 leaf concepts.
CREATE OR REPLACE MACRO wemath_concept_accuracy_of(runs) AS TABLE
SELECT run_id, grader,
       concept,
       count(*)                       AS n,
       count(*) FILTER (correct)      AS correct,
       avg(correct::INTEGER)          AS accuracy
FROM wemath_item_verdicts_of(runs)
WHERE NOT is_composite
GROUP BY run_id, grader, concept;
-- @stored wemath_concept_accuracy

COMMENT ON VIEW wemath_concept_accuracy IS $$Accuracy of the one-step questions labelled with each of the 67 leaf concepts.$$;
COMMENT ON COLUMN wemath_concept_accuracy.concept IS $$The leaf concept.$$;
COMMENT ON COLUMN wemath_concept_accuracy.n IS $$One-step questions labelled with it.$$;
COMMENT ON COLUMN wemath_concept_accuracy.correct IS $$Right answers among them.$$;
COMMENT ON COLUMN wemath_concept_accuracy.accuracy IS $$correct / n, a fraction.$$;
