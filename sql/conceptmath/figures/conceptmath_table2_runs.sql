-- The runs of paper Table 2's row of a model (conceptmath_table2): for the run `rid`, the runs
-- of the same model on ConceptMath, one per prompt setting (the run itself for its own setting;
-- otherwise the latest started). From `runs` alone: cheap. (A report asks conceptmath_accuracy
-- for each of these runs by its id: a join on run_id computes every run's accuracy before
-- choosing, slow on a store of many runs.)
CREATE OR REPLACE MACRO conceptmath_table2_runs(rid) AS TABLE
WITH me AS (
    SELECT model, setting FROM runs WHERE run_id = rid
)
SELECT r.setting, r.run_id
FROM runs r, me
WHERE r.benchmark = 'conceptmath' AND r.model = me.model
QUALIFY row_number() OVER (PARTITION BY r.setting
                           ORDER BY (r.run_id = rid) DESC, r.started_at DESC, r.run_id) = 1;
