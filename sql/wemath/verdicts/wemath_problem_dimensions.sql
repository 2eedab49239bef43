-- The four dimensions of the paper (Sec. 3.2), defined here and nowhere else: each complete
-- problem of a run, under each rule, is one of
--   IK  Insufficient Knowledge      a one-step question wrong, the composite wrong
--   IG  Inadequate Generalization   every one-step question right, the composite wrong
--   CM  Complete Mastery            the composite right; strict: every one-step right,
--                                   loose: any one-step right
--   RM  Rote Memorization           the composite right, and not CM (strict: a one-step wrong;
--                                   loose: every one-step wrong)
-- Every figure of problems derives from it: wemath_four_dimensional (counts, rates, score),
-- wemath_figure_units (each problem's cells), wemath_transitions, wemath_kca_transitions.
CREATE OR REPLACE MACRO wemath_problem_dimensions_of(runs) AS TABLE
SELECT p.run_id, p.grader, p.problem_id, r.rule,
       CASE WHEN NOT p.all_subs AND NOT p.multi THEN 'IK'
            WHEN p.all_subs AND NOT p.multi THEN 'IG'
            WHEN r.rule = 'strict' AND p.all_subs THEN 'CM'
            WHEN r.rule = 'loose' AND p.any_subs THEN 'CM'
            ELSE 'RM' END AS dimension
FROM wemath_problem_verdicts_of(runs) p
CROSS JOIN (VALUES ('strict'), ('loose')) r(rule)
WHERE p.complete;

CREATE OR REPLACE VIEW wemath_problem_dimensions AS
FROM wemath_problem_dimensions_of('run_data');

COMMENT ON VIEW wemath_problem_dimensions IS $$Each complete problem's dimension (IK, IG, CM or RM) under each rule: the per-problem layer of wemath_four_dimensional.$$;
COMMENT ON COLUMN wemath_problem_dimensions.problem_id IS $$The problem.$$;
COMMENT ON COLUMN wemath_problem_dimensions.rule IS $$strict or loose.$$;
COMMENT ON COLUMN wemath_problem_dimensions.dimension IS $$IK, IG, CM or RM.$$;
