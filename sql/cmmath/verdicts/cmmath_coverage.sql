-- cmmath_grader_coverage: this view's name in stores an older mathprobe made, computed there
-- over the decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_grader_coverage;

-- How many of a run's answers each grader decided.
CREATE OR REPLACE VIEW cmmath_coverage AS
SELECT run_id, grader,
       count(*)                                AS n_answers,
       count(correct)                          AS n_decided,
       count(*) - count(correct)               AS n_undecided,
       count(correct) / count(*)               AS coverage
FROM cmmath_answers
GROUP BY run_id, grader;

COMMENT ON VIEW cmmath_coverage IS $$CMMaTH: how many of a run's answers each grader decided.$$;
COMMENT ON COLUMN cmmath_coverage.n_answers IS $$answers of the run (ok, refused, missing; failed calls are not answers)$$;
COMMENT ON COLUMN cmmath_coverage.n_decided IS $$answers the grader gave a verdict$$;
COMMENT ON COLUMN cmmath_coverage.n_undecided IS $$answers the grader left undecided (counted as not right in every figure)$$;
COMMENT ON COLUMN cmmath_coverage.coverage IS $$n_decided / n_answers$$;
