-- The authors' SSR: one knowledge point per question (cmmath_items.official_point; questions
-- without one are skipped), rate = right / (count + 1) per point, SSR@alpha = share of points
-- with rate > alpha, for alpha = 0, 0.1, ..., 0.8 (compared as their floats are).
CREATE OR REPLACE VIEW cmmath_official_ssr AS
WITH rates AS (
    SELECT run_id, grader, official_point AS point,
           count(*) FILTER (correct) / (count(*) + 1) AS rate
    FROM cmmath_answers
    WHERE official_point IS NOT NULL
    GROUP BY run_id, grader, official_point
), alphas AS (
    SELECT i / 10 AS alpha FROM range(0, 9) t(i)
)
SELECT r.run_id, r.grader, a.alpha,
       count(*)                                   AS n_points,
       count(*) FILTER (r.rate > a.alpha) / count(*) AS ssr
FROM rates r
CROSS JOIN alphas a
GROUP BY r.run_id, r.grader, a.alpha;

COMMENT ON VIEW cmmath_official_ssr IS $$CMMaTH, the authors' code (statics_knowledge_complete_rate): share of knowledge points (one per question, the parent of the innermost) whose rate right / (count + 1) exceeds alpha.$$;
COMMENT ON COLUMN cmmath_official_ssr.alpha IS $$0, 0.1, ..., 0.8 (their thresholds)$$;
COMMENT ON COLUMN cmmath_official_ssr.n_points IS $$points counted (their len(kn_dict))$$;
COMMENT ON COLUMN cmmath_official_ssr.ssr IS $$share of points with rate > alpha, a fraction (they print it unrounded)$$;
