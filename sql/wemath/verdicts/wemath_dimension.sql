-- The four dimensions of the paper (Sec. 3.2), defined here and nowhere else: a complete
-- problem, from whether all / any of its one-step questions are right and whether its
-- composite question is right, under a rule, is one of
--   IK  Insufficient Knowledge      a one-step question wrong, the composite wrong
--   IG  Inadequate Generalization   every one-step question right, the composite wrong
--   CM  Complete Mastery            the composite right; strict: every one-step right,
--                                   loose: any one-step right
--   RM  Rote Memorization           the composite right, and not CM (strict: a one-step wrong;
--                                   loose: every one-step wrong)
-- Every classification of problems calls it: wemath_problem_dimensions (the answers that count)
-- and wemath_sample_dimensions (each sample, the majority answers).
CREATE OR REPLACE MACRO wemath_dimension(all_subs, any_subs, multi, rule) AS (
    CASE WHEN NOT all_subs AND NOT multi THEN 'IK'
         WHEN all_subs AND NOT multi THEN 'IG'
         WHEN rule = 'strict' AND all_subs THEN 'CM'
         WHEN rule = 'loose' AND any_subs THEN 'CM'
         ELSE 'RM' END
);

COMMENT ON MACRO wemath_dimension IS $$A complete WE-MATH problem's dimension (IK, IG, CM or RM) under a rule (strict, loose), from all / any of its one-step questions right and its composite right (paper Sec. 3.2).$$;
