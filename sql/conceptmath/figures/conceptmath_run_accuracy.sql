-- A run's accuracy over all its problems, whatever systems it covers.
CREATE OR REPLACE VIEW conceptmath_run_accuracy AS
SELECT run_id, grader,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM conceptmath_item_verdicts
GROUP BY run_id, grader;

COMMENT ON VIEW conceptmath_run_accuracy IS $$A run's accuracy over all its problems, whatever systems it covers.$$;
COMMENT ON COLUMN conceptmath_run_accuracy.n IS $$Graded problems.$$;
COMMENT ON COLUMN conceptmath_run_accuracy.correct IS $$Right answers.$$;
COMMENT ON COLUMN conceptmath_run_accuracy.accuracy IS $$correct / n, a fraction.$$;
