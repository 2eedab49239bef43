-- The concepts of each run with at least `min_n` graded problems, ranked within the run's
-- system and level: rank 1 = lowest accuracy; ties go to the concept with more problems, then
-- by name.
CREATE OR REPLACE MACRO conceptmath_lowest(min_n) AS TABLE
SELECT run_id, grader, system, level, concept, n, accuracy,
       row_number() OVER (PARTITION BY run_id, grader, system, level
                          ORDER BY accuracy, n DESC, concept) AS rank
FROM conceptmath_concept_accuracy
WHERE n >= min_n;
