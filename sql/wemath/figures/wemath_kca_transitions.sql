-- Fig. 10 for every pair of wemath_kca_pairs: plain dimension -> KCA dimension, per grader and
-- rule (only the moves that happened; wemath_transitions lists all 16 cells of one pair).
CREATE OR REPLACE VIEW wemath_kca_transitions AS
SELECT k.model, k.plain_run, k.kca_run, a.grader, a.rule,
       a.dimension AS from_dim, b.dimension AS to_dim, count(*) AS n
FROM wemath_kca_pairs k
JOIN wemath_problem_dimensions a ON a.run_id = k.plain_run
JOIN wemath_problem_dimensions b ON b.run_id = k.kca_run AND b.problem_id = a.problem_id
                                 AND b.rule = a.rule AND b.grader = a.grader
GROUP BY ALL;

COMMENT ON VIEW wemath_kca_transitions IS $$Paper Fig. 10: per model, how many problems moved from each dimension in its plain run to each in its KCA run (moves that happened; wemath_transitions(run_a, run_b) lists all 16 cells of any pair).$$;
COMMENT ON COLUMN wemath_kca_transitions.model IS $$The model.$$;
COMMENT ON COLUMN wemath_kca_transitions.plain_run IS $$Its plain run.$$;
COMMENT ON COLUMN wemath_kca_transitions.kca_run IS $$Its KCA run.$$;
COMMENT ON COLUMN wemath_kca_transitions.rule IS $$strict or loose.$$;
COMMENT ON COLUMN wemath_kca_transitions.from_dim IS $$The problem's dimension in the plain run.$$;
COMMENT ON COLUMN wemath_kca_transitions.to_dim IS $$Its dimension in the KCA run.$$;
COMMENT ON COLUMN wemath_kca_transitions.n IS $$Problems that moved so (complete in both runs).$$;
