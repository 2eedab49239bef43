-- Paper Table 1, first columns: S1 over all one-step questions, S2/S3 over the composite
-- questions of two- and three-step problems (of complete problems, as every figure).
CREATE OR REPLACE MACRO wemath_step_accuracy_of(runs) AS TABLE
SELECT run_id, grader,
       avg(correct::INTEGER) FILTER (NOT is_composite)             AS s1,
       avg(correct::INTEGER) FILTER (is_composite AND steps = 2)   AS s2,
       avg(correct::INTEGER) FILTER (is_composite AND steps = 3)   AS s3
FROM wemath_item_verdicts_of(runs)
GROUP BY run_id, grader;
-- @stored wemath_step_accuracy

COMMENT ON VIEW wemath_step_accuracy IS $$Paper Table 1, first columns: S1 (all one-step questions), S2, S3 (the composite questions of two- and three-step problems), over complete problems.$$;
COMMENT ON COLUMN wemath_step_accuracy.s1 IS $$S1: accuracy of the one-step questions, a fraction.$$;
COMMENT ON COLUMN wemath_step_accuracy.s2 IS $$S2: accuracy of the composite questions of two-step problems.$$;
COMMENT ON COLUMN wemath_step_accuracy.s3 IS $$S3: accuracy of the composite questions of three-step problems.$$;
