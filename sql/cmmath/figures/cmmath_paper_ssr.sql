-- cmmath_ssr: this view's name in stores an older mathprobe made, computed there over the
-- decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_ssr;

-- Knowledge-point mastery (paper, "SSR"): the share of knowledge points whose accuracy is
-- strictly greater than alpha, alpha in {0.1, 0.2, 0.3, 0.6}, over the leaf points with at
-- least one answer in the run. Compared in integers (10 * correct > tenths * n), so an accuracy
-- equal to alpha (3 of 10 at alpha 0.3) is never counted by a rounding accident.
CREATE OR REPLACE VIEW cmmath_paper_ssr AS
WITH alphas(tenths) AS (VALUES (1), (2), (3), (6))
SELECT pa.run_id, pa.grader,
       a.tenths / 10                                                  AS alpha,
       count(*)                                                       AS n_points,
       count(*) FILTER (10 * pa.correct > a.tenths * pa.n) / count(*) AS ssr
FROM cmmath_paper_point_accuracy pa
CROSS JOIN alphas a
GROUP BY pa.run_id, pa.grader, a.tenths;

COMMENT ON VIEW cmmath_paper_ssr IS $$CMMaTH, the paper's definition of SSR@alpha: share of leaf knowledge points with accuracy (right / all answers) strictly above alpha.$$;
COMMENT ON COLUMN cmmath_paper_ssr.alpha IS $$0.1, 0.2, 0.3 or 0.6 (the paper's)$$;
COMMENT ON COLUMN cmmath_paper_ssr.n_points IS $$leaf points with at least one answer in the run$$;
COMMENT ON COLUMN cmmath_paper_ssr.ssr IS $$share of those points with accuracy > alpha, a fraction$$;
