-- The paper's weights (alpha 0, beta 0.5), stored per run.
CREATE OR REPLACE MACRO wemath_four_dimensional_of(runs) AS TABLE
FROM wemath_four_dimensional_scored(runs := runs);
-- @stored wemath_four_dimensional

COMMENT ON VIEW wemath_four_dimensional IS $$Paper Table 2: the four-dimensional metric of each run under the strict and loose rules (alpha 0, beta 0.5); wemath_four_dimensional_scored(alpha, beta) takes other weights.$$;
COMMENT ON COLUMN wemath_four_dimensional.rule IS $$strict or loose (how CM and RM count partial one-step success).$$;
COMMENT ON COLUMN wemath_four_dimensional.n IS $$N: the complete problems of the run (525 on the full testmini).$$;
COMMENT ON COLUMN wemath_four_dimensional.ik IS $$IK, Insufficient Knowledge: problems with a one-step question wrong and the composite wrong.$$;
COMMENT ON COLUMN wemath_four_dimensional.ig IS $$IG, Inadequate Generalization: every one-step question right, the composite wrong.$$;
COMMENT ON COLUMN wemath_four_dimensional.cm IS $$CM, Complete Mastery: strict, every one-step right and the composite right; loose, any one-step right and the composite right.$$;
COMMENT ON COLUMN wemath_four_dimensional.rm IS $$RM, Rote Memorization: strict, the composite right but a one-step wrong; loose, the composite right with every one-step wrong.$$;
COMMENT ON COLUMN wemath_four_dimensional.ik_rate IS $$IK / N, a fraction.$$;
COMMENT ON COLUMN wemath_four_dimensional.ig_rate IS $$IG / N, a fraction.$$;
COMMENT ON COLUMN wemath_four_dimensional.cm_rate IS $$CM / N, a fraction.$$;
COMMENT ON COLUMN wemath_four_dimensional.rm_rate IS $$RM / (RM + CM), a fraction; NULL when no composite question is right.$$;
COMMENT ON COLUMN wemath_four_dimensional.score IS $$Score = (alpha IK + beta IG + CM) / N with alpha 0, beta 0.5, a fraction.$$;
