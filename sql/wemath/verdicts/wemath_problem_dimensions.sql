-- The four dimensions of each problem (paper Sec. 3.2) under each rule: the per-problem layer
-- of wemath_four_dimensional, for following a problem from one run to another.
CREATE OR REPLACE VIEW wemath_problem_dimensions AS
SELECT run_id, grader, problem_id, r.rule,
       CASE WHEN NOT all_subs AND NOT multi THEN 'IK'
            WHEN all_subs AND NOT multi THEN 'IG'
            WHEN r.rule = 'strict' AND all_subs THEN 'CM'
            WHEN r.rule = 'loose' AND any_subs THEN 'CM'
            ELSE 'RM' END AS dimension
FROM wemath_problem_verdicts
CROSS JOIN (VALUES ('strict'), ('loose')) r(rule)
WHERE complete;

COMMENT ON VIEW wemath_problem_dimensions IS $$Each complete problem's dimension (IK, IG, CM or RM) under each rule: the per-problem layer of wemath_four_dimensional.$$;
COMMENT ON COLUMN wemath_problem_dimensions.problem_id IS $$The problem.$$;
COMMENT ON COLUMN wemath_problem_dimensions.rule IS $$strict or loose.$$;
COMMENT ON COLUMN wemath_problem_dimensions.dimension IS $$IK, IG, CM or RM.$$;
