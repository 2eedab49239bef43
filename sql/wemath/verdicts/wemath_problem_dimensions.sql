-- Each complete problem of a run, under each rule, in one of the paper's four dimensions (IK,
-- IG, CM, RM: wemath_dimension, where they are defined). Every figure of problems derives from
-- it: wemath_four_dimensional (counts, rates, score), wemath_figure_units (each problem's
-- cells), wemath_transitions, wemath_kca_transitions.
CREATE OR REPLACE MACRO wemath_problem_dimensions_of(runs) AS TABLE
SELECT p.run_id, p.grader, p.problem_id, r.rule,
       wemath_dimension(p.all_subs, p.any_subs, p.multi, r.rule) AS dimension
FROM wemath_problem_verdicts_of(runs) p
CROSS JOIN (VALUES ('strict'), ('loose')) r(rule)
WHERE p.complete;

CREATE OR REPLACE VIEW wemath_problem_dimensions AS
FROM wemath_problem_dimensions_of('run_data');

COMMENT ON VIEW wemath_problem_dimensions IS $$Each complete problem's dimension (IK, IG, CM or RM) under each rule: the per-problem layer of wemath_four_dimensional.$$;
COMMENT ON COLUMN wemath_problem_dimensions.problem_id IS $$The problem.$$;
COMMENT ON COLUMN wemath_problem_dimensions.rule IS $$strict or loose.$$;
COMMENT ON COLUMN wemath_problem_dimensions.dimension IS $$IK, IG, CM or RM.$$;
