-- Paper Table 2, one cell: accuracy of a run on a system (its setting is the run's).
-- A missing response counts wrong (the authors' rule); a failed call has no verdict and is
-- left out until retried.
CREATE OR REPLACE VIEW conceptmath_accuracy AS
SELECT run_id, grader, system,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM conceptmath_item_verdicts
GROUP BY run_id, grader, system;

COMMENT ON VIEW conceptmath_accuracy IS $$Paper Table 2, one cell: a run's accuracy on a system (the run's setting is its column).$$;
COMMENT ON COLUMN conceptmath_accuracy.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_accuracy.n IS $$Graded problems of the system.$$;
COMMENT ON COLUMN conceptmath_accuracy.correct IS $$Right answers.$$;
COMMENT ON COLUMN conceptmath_accuracy.accuracy IS $$correct / n, a fraction (Table 2 prints it x100).$$;
