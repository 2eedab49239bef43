-- cmmath_category_accuracy: this view's name in stores an older mathprobe made, computed there
-- over the decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_category_accuracy;

-- Paper Table 4, the visual-subject columns: accuracy per multimodal category.
CREATE OR REPLACE VIEW cmmath_paper_category_accuracy AS
SELECT run_id, grader, category,
       count(*)                   AS n,
       count(*) - count(correct)  AS n_undecided,
       n_correct(correct)         AS correct,
       accuracy_of(correct)       AS accuracy
FROM cmmath_answers
GROUP BY run_id, grader, category;

COMMENT ON VIEW cmmath_paper_category_accuracy IS $$CMMaTH, the paper's definition (Table 4, visual subjects): accuracy = right / all answers per multimodal category.$$;
COMMENT ON COLUMN cmmath_paper_category_accuracy.category IS $$visual subject (metadata.multimodal-category)$$;
COMMENT ON COLUMN cmmath_paper_category_accuracy.n_undecided IS $$answers left undecided (in n, not in correct)$$;
COMMENT ON COLUMN cmmath_paper_category_accuracy.accuracy IS $$correct / n, a fraction$$;
COMMENT ON COLUMN cmmath_paper_category_accuracy.n IS $$Answers of the visual subject.$$;
COMMENT ON COLUMN cmmath_paper_category_accuracy.correct IS $$Answers graded right.$$;
