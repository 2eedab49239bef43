-- Paper Table 2, one model's row: for the run `rid`, the runs of the same model on ConceptMath,
-- one per prompt setting (conceptmath_table2_runs), and their accuracy on each system under
-- `grader_name`.
CREATE OR REPLACE MACRO conceptmath_table2(rid, grader_name) AS TABLE
SELECT ch.setting, ch.run_id, a.system, a.n, a.correct, a.accuracy
FROM conceptmath_table2_runs(rid) ch
JOIN conceptmath_accuracy a ON a.run_id = ch.run_id AND a.grader = grader_name;
