-- The k weakest concepts of a run, honestly ranked (the first step of the paper's targeted
-- improvement, Sec. 2.4: "the 10 concepts with the lowest accuracy"): per run, grader and
-- system, the `k` lowest concepts of level `lvl` (default 3, the paper's) among those with at
-- least conceptmath_unmastered_min_n() graded problems, ranked as conceptmath_lowest ranks them
-- (lowest accuracy first; ties: more problems first, then by name), each with its n, its 95%
-- Wilson interval and whether its place among the k weakest is established:
-- `uncertain` where the interval reaches the accuracy of the first concept outside them (rank
-- k + 1): a concept of few problems whose accuracy could as well be that one's. `next_accuracy`
-- is that accuracy (NULL when every eligible concept is among the k); `n_eligible` and
-- `n_too_few` count the system's concepts that could be ranked and those left out for want of
-- problems. Also what error analysis (unmastered concepts with error types) reads.
CREATE OR REPLACE MACRO conceptmath_lowest_k(k, lvl := 3) AS TABLE
WITH every_concept AS (
    SELECT run_id, grader, system, concept, n, correct, accuracy,
           n >= conceptmath_unmastered_min_n() AS eligible
    FROM conceptmath_concept_accuracy
    WHERE level = lvl
), ranked AS (
    SELECT run_id, grader, system, concept, n, correct, accuracy,
           row_number() OVER (PARTITION BY run_id, grader, system
                              ORDER BY accuracy, n DESC, concept) AS rank
    FROM every_concept
    WHERE eligible
), counts AS (
    SELECT run_id, grader, system,
           count(*) FILTER (eligible)      AS n_eligible,
           count(*) FILTER (NOT eligible)  AS n_too_few
    FROM every_concept
    GROUP BY run_id, grader, system
), cut AS (        -- the first concept outside the k weakest
    SELECT run_id, grader, system, accuracy AS next_accuracy
    FROM ranked
    WHERE rank = k + 1
)
SELECT r.run_id, r.grader, r.system, r.rank, r.concept, r.n, r.correct, r.accuracy,
       wilson_interval(r.correct, r.n).low                               AS ci_low,
       wilson_interval(r.correct, r.n).high                              AS ci_high,
       c.next_accuracy,
       coalesce(wilson_interval(r.correct, r.n).high >= c.next_accuracy, false) AS uncertain,
       n.n_eligible, n.n_too_few
FROM ranked r
JOIN counts n USING (run_id, grader, system)
LEFT JOIN cut c USING (run_id, grader, system)
WHERE r.rank <= k;

COMMENT ON MACRO TABLE conceptmath_lowest_k IS $$The k weakest concepts of each run, grader and system at level lvl (default 3) among those with at least conceptmath_unmastered_min_n() graded problems: rank (1 = lowest accuracy; ties: more problems, then name), concept, n, correct, accuracy, ci_low/ci_high (95% Wilson), next_accuracy (rank k + 1), uncertain (the interval reaches next_accuracy), n_eligible, n_too_few.$$;