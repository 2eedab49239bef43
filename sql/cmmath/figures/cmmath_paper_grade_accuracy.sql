-- cmmath_grade_accuracy: this view's name in stores an older mathprobe made, computed there over
-- the decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_grade_accuracy;

-- Paper Table 4, the grade columns: accuracy per grade group.
CREATE OR REPLACE VIEW cmmath_paper_grade_accuracy AS
SELECT run_id, grader, grade_group,
       count(*)                   AS n,
       count(*) - count(correct)  AS n_undecided,
       n_correct(correct)         AS correct,
       accuracy_of(correct)       AS accuracy
FROM cmmath_answers
GROUP BY run_id, grader, grade_group;

COMMENT ON VIEW cmmath_paper_grade_accuracy IS $$CMMaTH, the paper's definition (Table 4, grades): accuracy = right / all answers per grade group.$$;
COMMENT ON COLUMN cmmath_paper_grade_accuracy.grade_group IS $$1 elementary, 2 junior, 3 senior$$;
COMMENT ON COLUMN cmmath_paper_grade_accuracy.n_undecided IS $$answers left undecided (in n, not in correct)$$;
COMMENT ON COLUMN cmmath_paper_grade_accuracy.accuracy IS $$correct / n, a fraction$$;
COMMENT ON COLUMN cmmath_paper_grade_accuracy.n IS $$Answers of the grade group.$$;
COMMENT ON COLUMN cmmath_paper_grade_accuracy.correct IS $$Answers graded right.$$;
