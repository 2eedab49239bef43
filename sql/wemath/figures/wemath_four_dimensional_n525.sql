-- WE-MATH: what the tools that hard-code N = 525 print for a run. The authors' own script
-- (evaluation/four_dimensional_metrics.py), VLMEvalKit (vlmeval/dataset/utils/wemath.py) and
-- lmms-eval (tasks/wemath/wemath_utils.py) count IK, IG, CM and RM over the problems the file
-- holds, then divide by 525, the problems of the whole testmini:
--   rates IK/525, IG/525, CM/525; RM rate RM/(RM+CM) (no N);
--   score (525 - 0.5*IG - RM - IK) / 525  -- on the whole testmini (IK+IG+CM+RM = 525) this is
--   (CM + 0.5*IG)/525, the paper's; on a subset of n problems it is (525 - n + CM + 0.5*IG)/525,
--   which counts every problem not in the file as mastered.
-- mathprobe's wemath_four_dimensional divides by N from the data; on the whole testmini both
-- agree, on a subset this view is what a user of those tools saw, to reconcile the two.
CREATE OR REPLACE VIEW wemath_four_dimensional_n525 AS
SELECT run_id, grader, rule, n, ik, ig, cm, rm,
       525                                               AS n_assumed,
       ik / 525                                          AS ik_rate,
       ig / 525                                          AS ig_rate,
       cm / 525                                          AS cm_rate,
       CASE WHEN rm + cm > 0 THEN rm / (rm + cm) END     AS rm_rate,
       (525 - 0.5 * ig - rm - ik) / 525                  AS score
FROM wemath_four_dimensional;

COMMENT ON VIEW wemath_four_dimensional_n525 IS $$WE-MATH: the four-dimensional metric as the authors' script, VLMEvalKit and lmms-eval print it, dividing by N = 525 whatever the run holds (score = (525 - 0.5 IG - RM - IK) / 525); equal to wemath_four_dimensional on the whole testmini, not on a subset.$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.grader IS $$The grader of the verdicts.$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.rule IS $$strict | loose$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.n IS $$complete problems the run holds (mathprobe's N)$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.ik IS $$Insufficient Knowledge: problems counted$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.ig IS $$Inadequate Generalization: problems counted$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.cm IS $$Complete Mastery: problems counted$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.rm IS $$Rote Memorization: problems counted$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.n_assumed IS $$the N those tools divide by: 525, hard-coded$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.ik_rate IS $$IK / 525$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.ig_rate IS $$IG / 525$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.cm_rate IS $$CM / 525$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.rm_rate IS $$RM / (RM + CM), as theirs (independent of N)$$;
COMMENT ON COLUMN wemath_four_dimensional_n525.score IS $$(525 - 0.5 IG - RM - IK) / 525, their formula$$;
