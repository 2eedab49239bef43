-- Per run and problem: how many of its questions the run has answered (a response that counts:
-- ok, refused or missing), how many failed (infra_failed) and how many were cut at the token
-- cap before their answer (truncated), whatever the grader. A problem
-- the run asked anything of but has not answered whole is left out of every figure.
CREATE OR REPLACE VIEW wemath_problem_coverage AS
SELECT c.run_id, i.group_id                                       AS problem_id,
       CAST(left(any_value(i.part), 1) AS INTEGER) + 1            AS n_questions,
       count(*) FILTER (c.status IN ('ok', 'refused', 'missing'))  AS n_answered,
       count(*) FILTER (c.status = 'infra_failed')                AS n_failed,
       count(*) FILTER (c.status = 'truncated')                   AS n_truncated,
       count(*) FILTER (c.status IN ('ok', 'refused', 'missing'))
         = CAST(left(any_value(i.part), 1) AS INTEGER) + 1        AS complete
FROM current_responses c
JOIN runs r ON r.run_id = c.run_id AND r.benchmark = 'wemath'
JOIN items i ON i.benchmark = 'wemath' AND i.item_id = c.item_id
GROUP BY c.run_id, i.group_id;

COMMENT ON VIEW wemath_problem_coverage IS $$Per run and problem: questions it has, answered, failed (infra_failed), cut at the token cap (truncated); an incomplete problem is left out of every figure.$$;
COMMENT ON COLUMN wemath_problem_coverage.n_questions IS $$Questions of the problem: its 2 or 3 one-step questions and the composite one.$$;
COMMENT ON COLUMN wemath_problem_coverage.n_answered IS $$Questions with a response that counts (ok, refused or missing: graded).$$;
COMMENT ON COLUMN wemath_problem_coverage.n_failed IS $$Questions whose call failed (infra_failed): never graded, re-asked by --retry-failed.$$;
COMMENT ON COLUMN wemath_problem_coverage.problem_id IS $$The problem.$$;
COMMENT ON COLUMN wemath_problem_coverage.complete IS $$Every question answered (a response that counts): the problem can enter the figures.$$;
COMMENT ON COLUMN wemath_problem_coverage.n_truncated IS $$Questions whose reply was cut at the token cap inside the reasoning or before the answer (truncated): never graded, re-asked by a larger --max-tokens or --retry-failed.$$;
