-- Mean concept accuracy (paper Fig. 5): a concept's accuracy averaged across models, each model
-- by its chosen zero-shot run (conceptmath_mean_concept_runs), per grader. Ordered: the same
-- bits every time.
CREATE OR REPLACE VIEW conceptmath_mean_concept_accuracy AS
SELECT c.grader, c.system, c.level, c.concept,
       count(*)                                    AS n_models,
       avg(c.accuracy ORDER BY m.model)            AS mean_accuracy
FROM conceptmath_concept_accuracy c
JOIN conceptmath_mean_concept_runs m
  ON m.run_id = c.run_id AND m.grader = c.grader AND m.system = c.system
GROUP BY c.grader, c.system, c.level, c.concept;

COMMENT ON VIEW conceptmath_mean_concept_accuracy IS $$Paper Fig. 5: each concept's accuracy averaged over models, one zero-shot run per model and system (conceptmath_mean_concept_runs).$$;
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.n_models IS $$Models averaged (one zero-shot run each).$$;
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.mean_accuracy IS $$Unweighted mean over the models of the concept's accuracy, a fraction in [0, 1].$$;
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.concept IS $$The concept path.$$;
