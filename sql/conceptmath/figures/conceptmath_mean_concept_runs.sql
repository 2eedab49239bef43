-- The runs behind the mean concept accuracy (paper Fig. 5, which averages over models): zero-shot
-- runs only (setting 'zs'; never chain-of-thought, few-shot, probe or imported runs, whose prompt
-- is not zero-shot or not known), one per model and system: the run with the most graded
-- problems of that system, then the latest started, then the first by run id.
CREATE OR REPLACE VIEW conceptmath_mean_concept_runs AS
SELECT a.grader, r.model, a.system, a.run_id, a.n, r.started_at
FROM conceptmath_accuracy a
JOIN runs r ON r.run_id = a.run_id
WHERE r.setting = 'zs'
QUALIFY row_number() OVER (PARTITION BY a.grader, r.model, a.system
                           ORDER BY a.n DESC, r.started_at DESC, a.run_id) = 1;

COMMENT ON VIEW conceptmath_mean_concept_runs IS $$The run chosen per (grader, model, system) for the mean concept accuracy: zero-shot runs only, the one with the most graded problems, then the latest started, then by run id.$$;
COMMENT ON COLUMN conceptmath_mean_concept_runs.n IS $$Graded problems of the system in the chosen run.$$;
COMMENT ON COLUMN conceptmath_mean_concept_runs.model IS $$The model.$$;
COMMENT ON COLUMN conceptmath_mean_concept_runs.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_mean_concept_runs.run_id IS $$The run chosen for the model and system.$$;
COMMENT ON COLUMN conceptmath_mean_concept_runs.started_at IS $$When that run started (UTC).$$;
