-- The authors' scores: per group right / (count + 1) x 100; 'overall' (key 'all') right /
-- all answers x 100; per breakdown the total their report ends with (key '(total)'), right
-- counted in its groups / all answers x 100 (equal to overall unless labels fall outside
-- their lists); all rounded to one decimal as Python's round().
-- (One pass over the answers: each answer against every group of its breakdown, so a group
-- no answer falls in still gets its row; GROUPING SETS adds each breakdown's total.)
CREATE OR REPLACE MACRO cmmath_official_scores_of(runs) AS TABLE
WITH groups AS (
    SELECT a.run_id, a.grader, k.breakdown, k.key, k.position,
           grouping(k.breakdown) = 1                               AS is_overall,
           grouping(k.key) = 1                                     AS is_total,
           count(*) FILTER (a.key = k.key)                         AS n,
           count(*) FILTER (a.key = k.key AND a.counted_right)     AS correct,
           -- overall: every answer once (its row of the subject breakdown), right as graded
           count(*) FILTER (a.key = k.key AND a.breakdown = 'subject')              AS n_all,
           count(*) FILTER (a.key = k.key AND a.breakdown = 'subject' AND a.is_right) AS right_all
    FROM cmmath_official_answers_of(runs) a
    JOIN cmmath_official_keys k ON k.breakdown = a.breakdown
    GROUP BY GROUPING SETS ((a.run_id, a.grader, k.breakdown, k.key, k.position),
                            (a.run_id, a.grader, k.breakdown),
                            (a.run_id, a.grader))
)
SELECT run_id, grader, 'overall' AS breakdown, 'all' AS key, 0 AS position,
       n_all AS n, right_all AS correct,
       python_round_1(right_all / n_all * 100) AS score
FROM groups
WHERE is_overall
UNION ALL
SELECT run_id, grader, breakdown,
       CASE WHEN is_total THEN '(total)' ELSE key END,
       CASE WHEN is_total THEN 99 ELSE position END,
       n, correct,
       python_round_1(CASE WHEN is_total THEN correct / n ELSE correct / (n + 1) END * 100)
FROM groups
WHERE NOT is_overall;
-- Stored per run (mathprobe/store/stored_sql.py): 74 rows a run, read instead of grouping each of
-- its answers against every group.
-- @stored cmmath_official_scores

COMMENT ON VIEW cmmath_official_scores IS $$CMMaTH, the authors' code (tool/statics_acc.py): scores per visual subject, grade_id and question type = right / (count + 1) x 100, overall = right / all x 100, rounded to 1 decimal like Python's round(); right = the grader's verdict TRUE (undecided: not right).$$;
COMMENT ON COLUMN cmmath_official_scores.breakdown IS $$overall | subject | grade_id | question_type$$;
COMMENT ON COLUMN cmmath_official_scores.key IS $$the group (overall: all; per breakdown also (total), the total their report ends with)$$;
COMMENT ON COLUMN cmmath_official_scores.position IS $$the group's place in their report$$;
COMMENT ON COLUMN cmmath_official_scores.n IS $$answers in the group (their count)$$;
COMMENT ON COLUMN cmmath_official_scores.correct IS $$answers their script counts right there$$;
COMMENT ON COLUMN cmmath_official_scores.score IS $$percent, as they round it: groups right / (n + 1) x 100, overall and (total) right / n x 100$$;
