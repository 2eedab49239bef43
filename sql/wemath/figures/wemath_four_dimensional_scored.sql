-- The four-dimensional metric (paper, Sec. 3.2) with the score's weights as parameters:
--   IK = not all(subs) and not multi          IG = all(subs) and not multi
--   CM strict = all(subs) and multi           CM loose = any(subs) and multi
--   RM strict = not all(subs) and multi       RM loose = not any(subs) and multi
--   rates: IK/N, IG/N, CM/N, RM/(RM+CM);  score = (alpha*IK + beta*IG + CM) / N
-- N is the number of complete problems in the run (525 on the full testmini).
CREATE OR REPLACE MACRO wemath_four_dimensional_scored(alpha := 0.0, beta := 0.5, runs := 'run_data') AS TABLE
WITH counts AS (
    SELECT run_id, grader,
           count(*)                                          AS n,
           count(*) FILTER (NOT all_subs AND NOT multi)      AS ik,
           count(*) FILTER (all_subs AND NOT multi)          AS ig,
           count(*) FILTER (all_subs AND multi)              AS cm_strict,
           count(*) FILTER (any_subs AND multi)              AS cm_loose,
           count(*) FILTER (NOT all_subs AND multi)          AS rm_strict,
           count(*) FILTER (NOT any_subs AND multi)          AS rm_loose
    FROM wemath_problem_verdicts_of(runs)
    WHERE complete
    GROUP BY run_id, grader
), by_rule AS (
    SELECT run_id, grader, 'strict' AS rule, n, ik, ig, cm_strict AS cm, rm_strict AS rm FROM counts
    UNION ALL
    SELECT run_id, grader, 'loose'  AS rule, n, ik, ig, cm_loose  AS cm, rm_loose  AS rm FROM counts
)
SELECT run_id, grader, rule, n, ik, ig, cm, rm,
       ik / n                                         AS ik_rate,
       ig / n                                         AS ig_rate,
       cm / n                                         AS cm_rate,
       CASE WHEN rm + cm > 0 THEN rm / (rm + cm) END  AS rm_rate,
       (alpha * ik + beta * ig + cm) / n              AS score
FROM by_rule;
