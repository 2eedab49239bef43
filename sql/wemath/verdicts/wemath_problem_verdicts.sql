-- One row per composite problem: its one-step results and its composite result. A problem is
-- complete when every one-step question and the composite question have a verdict.
CREATE OR REPLACE MACRO wemath_problem_verdicts_of(runs) AS TABLE
SELECT run_id, grader, problem_id,
       any_value(steps)                              AS steps,
       count(*) FILTER (NOT is_composite)            AS n_subs,
       bool_and(correct) FILTER (NOT is_composite)   AS all_subs,
       bool_or(correct)  FILTER (NOT is_composite)   AS any_subs,
       bool_or(correct)  FILTER (is_composite)       AS multi,
       count(*) FILTER (NOT is_composite) = any_value(steps)
         AND count(*) FILTER (is_composite) = 1      AS complete
FROM wemath_question_verdicts_of(runs)
GROUP BY run_id, grader, problem_id;

CREATE OR REPLACE VIEW wemath_problem_verdicts AS
FROM wemath_problem_verdicts_of('run_data');

COMMENT ON VIEW wemath_problem_verdicts IS $$Per run, grader and composite problem: its one-step results (all / any right), its composite result, and whether every question has a verdict (complete).$$;
COMMENT ON COLUMN wemath_problem_verdicts.problem_id IS $$The composite problem (ID).$$;
COMMENT ON COLUMN wemath_problem_verdicts.steps IS $$Its steps: 2 or 3.$$;
COMMENT ON COLUMN wemath_problem_verdicts.n_subs IS $$One-step questions with a verdict.$$;
COMMENT ON COLUMN wemath_problem_verdicts.all_subs IS $$Every one-step question right.$$;
COMMENT ON COLUMN wemath_problem_verdicts.any_subs IS $$At least one one-step question right.$$;
COMMENT ON COLUMN wemath_problem_verdicts.multi IS $$The composite question right.$$;
COMMENT ON COLUMN wemath_problem_verdicts.complete IS $$Every question of the problem has a verdict: only complete problems enter the figures.$$;
