-- KCA vs plain (paper Fig. 10): for two runs, how many problems moved from each dimension in
-- run_a to each dimension in run_b, over the problems complete in both (the 16 cells sum to
-- that N). All 16 cells are listed, zeros included.
CREATE OR REPLACE MACRO wemath_transitions(run_a, run_b, grader_name := 'official') AS TABLE
WITH dims(dimension, k) AS (VALUES ('IK', 1), ('IG', 2), ('CM', 3), ('RM', 4)),
moves AS (
    SELECT a.rule, a.dimension AS from_dim, b.dimension AS to_dim, count(*) AS n
    FROM wemath_problem_dimensions a
    JOIN wemath_problem_dimensions b USING (problem_id, rule, grader)
    WHERE a.run_id = run_a AND b.run_id = run_b AND a.grader = grader_name
    GROUP BY ALL
)
SELECT r.rule, f.dimension AS from_dim, t.dimension AS to_dim, coalesce(m.n, 0) AS n
FROM (VALUES ('strict'), ('loose')) r(rule)
CROSS JOIN dims f CROSS JOIN dims t
LEFT JOIN moves m ON m.rule = r.rule AND m.from_dim = f.dimension AND m.to_dim = t.dimension
ORDER BY r.rule DESC, f.k, t.k;
