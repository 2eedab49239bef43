-- The questions every figure is computed from: those of complete problems only.
-- (The questions are computed once and grouped per problem here: complete exactly as in
-- wemath_problem_verdicts, every one-step question and the composite one graded.)
CREATE OR REPLACE MACRO wemath_item_verdicts_of(runs) AS TABLE
WITH q AS MATERIALIZED (FROM wemath_question_verdicts_of(runs))
SELECT q.*
FROM q
JOIN (SELECT run_id, grader, problem_id
      FROM q
      GROUP BY run_id, grader, problem_id
      HAVING count(*) FILTER (NOT is_composite) = any_value(steps)
         AND count(*) FILTER (is_composite) = 1) complete_problems
  USING (run_id, grader, problem_id);

CREATE OR REPLACE VIEW wemath_item_verdicts AS
FROM wemath_item_verdicts_of('run_data');

COMMENT ON VIEW wemath_item_verdicts IS $$The graded questions of complete problems only: what every WE-MATH figure (N, S1-S3, categories, concepts) is computed from.$$;
COMMENT ON COLUMN wemath_item_verdicts.item_id IS $$The question.$$;
COMMENT ON COLUMN wemath_item_verdicts.problem_id IS $$Its problem.$$;
COMMENT ON COLUMN wemath_item_verdicts.key IS $$Its key (2steps_1 .. 3steps_multi).$$;
COMMENT ON COLUMN wemath_item_verdicts.steps IS $$Steps of its problem.$$;
COMMENT ON COLUMN wemath_item_verdicts.is_composite IS $$Whether it is the composite question.$$;
COMMENT ON COLUMN wemath_item_verdicts.concept IS $$Its leaf concept(s).$$;
COMMENT ON COLUMN wemath_item_verdicts.correct IS $$Whether the answer is right.$$;
