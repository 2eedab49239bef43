-- cmmath_point_accuracy: this view's name in stores an older mathprobe made, computed there over
-- the decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_point_accuracy;

-- Accuracy per leaf knowledge point: a question with several leaf points counts toward each.
CREATE OR REPLACE VIEW cmmath_paper_point_accuracy AS
SELECT a.run_id, a.grader, p.point,
       count(*)                     AS n,
       count(*) - count(a.correct)  AS n_undecided,
       n_correct(a.correct)         AS correct,
       accuracy_of(a.correct)       AS accuracy
FROM cmmath_answers a
JOIN cmmath_all_item_points p ON p.item_id = a.item_id
GROUP BY a.run_id, a.grader, p.point;

COMMENT ON VIEW cmmath_paper_point_accuracy IS $$CMMaTH, the paper's definition: accuracy per leaf knowledge point (a question counts toward each of its leaves).$$;
COMMENT ON COLUMN cmmath_paper_point_accuracy.point IS $$a leaf of the knowledge_point path (or the skill)$$;
COMMENT ON COLUMN cmmath_paper_point_accuracy.n_undecided IS $$answers left undecided (in n, not in correct)$$;
COMMENT ON COLUMN cmmath_paper_point_accuracy.accuracy IS $$correct / n, a fraction$$;
COMMENT ON COLUMN cmmath_paper_point_accuracy.n IS $$Answers of questions under the point.$$;
COMMENT ON COLUMN cmmath_paper_point_accuracy.correct IS $$Answers graded right.$$;
