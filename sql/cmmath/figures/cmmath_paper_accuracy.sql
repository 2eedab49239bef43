-- cmmath_accuracy: this view's name in stores an older mathprobe made, computed there over the
-- decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_accuracy;

-- Layer 3, the paper's definitions. Paper Table 4, "Overall" and the answer types:
-- accuracy = right answers / all answers, over all questions ('all') and per answer type.
-- (One pass over the answers: the run's rows and its rows per answer type, 'all' first.)
CREATE OR REPLACE VIEW cmmath_paper_accuracy AS
SELECT run_id, grader,
       CASE WHEN grouping(answer_type) = 1 THEN 'all' ELSE answer_type END AS answer_type,
       count(*)                                 AS n,
       count(*) - count(correct)                AS n_undecided,
       n_correct(correct)                       AS correct,
       accuracy_of(correct)                     AS accuracy,
       (n_correct(correct) + count(*) - count(correct)) / count(*) AS accuracy_max
FROM cmmath_answers
GROUP BY GROUPING SETS ((run_id, grader), (run_id, grader, answer_type));

COMMENT ON VIEW cmmath_paper_accuracy IS $$CMMaTH, the paper's definition (Table 4, overall and answer types): accuracy = right / all answers; undecided answers count as not right and are shown apart.$$;
COMMENT ON COLUMN cmmath_paper_accuracy.answer_type IS $$all | choice | free_form$$;
COMMENT ON COLUMN cmmath_paper_accuracy.n IS $$answers$$;
COMMENT ON COLUMN cmmath_paper_accuracy.n_undecided IS $$answers the grader left undecided (in n, not in correct)$$;
COMMENT ON COLUMN cmmath_paper_accuracy.correct IS $$answers graded right$$;
COMMENT ON COLUMN cmmath_paper_accuracy.accuracy IS $$correct / n, a fraction: every undecided answer counted as not right$$;
COMMENT ON COLUMN cmmath_paper_accuracy.accuracy_max IS $$(correct + n_undecided) / n: the accuracy if every undecided answer were right; the true figure lies between accuracy and this$$;
