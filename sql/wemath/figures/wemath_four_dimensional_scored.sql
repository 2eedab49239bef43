-- The four-dimensional metric (paper, Sec. 3.2) with the score's weights as parameters: per
-- run, grader and rule, the problems of each dimension (wemath_problem_dimensions) and
--   rates: IK/N, IG/N, CM/N, RM/(RM+CM);  score = (alpha*IK + beta*IG + CM) / N
-- N is the number of complete problems in the run (525 on the full testmini).
CREATE OR REPLACE MACRO wemath_four_dimensional_scored(alpha := 0.0, beta := 0.5, runs := 'run_data') AS TABLE
WITH counts AS (
    SELECT run_id, grader, rule,
           count(*)                               AS n,
           count(*) FILTER (dimension = 'IK')     AS ik,
           count(*) FILTER (dimension = 'IG')     AS ig,
           count(*) FILTER (dimension = 'CM')     AS cm,
           count(*) FILTER (dimension = 'RM')     AS rm
    FROM wemath_problem_dimensions_of(runs)
    GROUP BY run_id, grader, rule
)
SELECT run_id, grader, rule, n, ik, ig, cm, rm,
       ik / n                                         AS ik_rate,
       ig / n                                         AS ig_rate,
       cm / n                                         AS cm_rate,
       CASE WHEN rm + cm > 0 THEN rm / (rm + cm) END  AS rm_rate,
       (alpha * ik + beta * ig + cm) / n              AS score
FROM counts;
