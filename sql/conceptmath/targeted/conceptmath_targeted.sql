-- Paper Table 5 (targeted improvement, Sec. 2.4) from two runs: the `k` weakest level-3 concepts
-- of `before_run` (conceptmath_lowest_k: lowest accuracy first, among the concepts with enough
-- graded problems), each with its accuracy before and in `after_run`, then the summary rows as
-- the paper names them: "Avg Acc. (over k concepts)" and "Avg Acc. (over N concepts)", the
-- unweighted means of concept accuracies (the k weak ones; every level-3 concept both runs
-- graded), and "Overall Acc.", right / graded over every problem of the system. Per system and
-- under one grader (default the official one). Accuracies are fractions; a concept row and
-- "Overall Acc." carry n, right answers and the 95% Wilson interval of each run, a mean of
-- concept accuracies no interval (n_concepts says how many it is over). Every row carries the
-- paired counts of McNemar's test over the problems both runs graded (n_paired; right only
-- before, only after), which `compare --baseline` turns into p-values. `ord` orders the rows as
-- the paper prints them. (Applied after conceptmath_lowest_k.sql, which it reads: the loader
-- applies a folder's files in name order.)
CREATE OR REPLACE MACRO conceptmath_targeted(before_run, after_run, k, grader_name := 'official')
AS TABLE
WITH weak AS (
    SELECT system, rank, concept
    FROM conceptmath_lowest_k(k)
    WHERE run_id = before_run AND grader = grader_name
), acc AS (                 -- level-3 concept accuracy of the two runs
    SELECT run_id, system, concept, n, correct, accuracy
    FROM conceptmath_concept_accuracy
    WHERE level = 3 AND grader = grader_name AND run_id IN (before_run, after_run)
), b AS (FROM acc WHERE run_id = before_run
), a AS (FROM acc WHERE run_id = after_run
), paired AS (              -- each problem graded in both runs
    SELECT x.system, x.cate0 || '/' || x.cate1 || '/' || x.cate2 AS concept,
           x.correct AS before_ok, y.correct AS after_ok
    FROM conceptmath_item_verdicts x
    JOIN conceptmath_item_verdicts y ON y.item_id = x.item_id
    WHERE x.run_id = before_run AND y.run_id = after_run
      AND x.grader = grader_name AND y.grader = grader_name
), paired_concept AS (
    SELECT system, concept, count(*) AS n_paired,
           count(*) FILTER (before_ok AND NOT after_ok) AS only_before,
           count(*) FILTER (after_ok AND NOT before_ok) AS only_after
    FROM paired
    GROUP BY system, concept
), leaf AS (
    SELECT DISTINCT system, cate0 || '/' || cate1 || '/' || cate2 AS concept, cate2
    FROM conceptmath_items
), concept_rows AS (
    SELECT w.system, w.rank AS ord, coalesce(l.cate2, w.concept) AS row, 'concept' AS kind,
           w.concept, 1 AS n_concepts,
           b.n AS before_n, b.correct AS before_correct, b.accuracy AS before_acc,
           a.n AS after_n, a.correct AS after_correct, a.accuracy AS after_acc,
           coalesce(p.n_paired, 0) AS n_paired, coalesce(p.only_before, 0) AS only_before,
           coalesce(p.only_after, 0) AS only_after
    FROM weak w
    JOIN b ON b.system = w.system AND b.concept = w.concept
    LEFT JOIN a ON a.system = w.system AND a.concept = w.concept
    LEFT JOIN paired_concept p ON p.system = w.system AND p.concept = w.concept
    LEFT JOIN leaf l ON l.system = w.system AND l.concept = w.concept
), weak_average AS (
    SELECT system, max(ord) + 1 AS ord,
           'Avg Acc. (over ' || count(*) || ' concepts)' AS row, 'average-weakest' AS kind,
           NULL AS concept, count(*) AS n_concepts,
           sum(before_n) AS before_n, sum(before_correct) AS before_correct,
           avg(before_acc ORDER BY ord) AS before_acc,
           sum(after_n) AS after_n, sum(after_correct) AS after_correct,
           avg(after_acc ORDER BY ord) AS after_acc,
           sum(n_paired) AS n_paired, sum(only_before) AS only_before,
           sum(only_after) AS only_after
    FROM concept_rows
    GROUP BY system
), both_runs AS (           -- the concepts both runs graded
    SELECT b.system, b.concept, b.n AS before_n, b.correct AS before_correct,
           b.accuracy AS before_acc, a.n AS after_n, a.correct AS after_correct,
           a.accuracy AS after_acc
    FROM b JOIN a ON a.system = b.system AND a.concept = b.concept
), all_average AS (
    SELECT s.system, w.ord + 1 AS ord,
           'Avg Acc. (over ' || count(*) || ' concepts)' AS row, 'average-all' AS kind,
           NULL AS concept, count(*) AS n_concepts,
           sum(s.before_n) AS before_n, sum(s.before_correct) AS before_correct,
           avg(s.before_acc ORDER BY s.concept) AS before_acc,
           sum(s.after_n) AS after_n, sum(s.after_correct) AS after_correct,
           avg(s.after_acc ORDER BY s.concept) AS after_acc,
           any_value(p.n_paired) AS n_paired, any_value(p.only_before) AS only_before,
           any_value(p.only_after) AS only_after
    FROM both_runs s
    JOIN weak_average w ON w.system = s.system
    LEFT JOIN (SELECT system, sum(n_paired) AS n_paired, sum(only_before) AS only_before,
                      sum(only_after) AS only_after
               FROM paired_concept p
               WHERE EXISTS (SELECT 1 FROM both_runs s2
                             WHERE s2.system = p.system AND s2.concept = p.concept)
               GROUP BY system) p ON p.system = s.system
    GROUP BY s.system, w.ord
), overall AS (
    SELECT w.system, w.ord + 2 AS ord, 'Overall Acc.' AS row, 'overall' AS kind,
           NULL AS concept, NULL AS n_concepts,
           sum(b.n) AS before_n, sum(b.correct) AS before_correct,
           sum(b.correct) / sum(b.n) AS before_acc,
           (SELECT sum(n) FROM a WHERE a.system = w.system) AS after_n,
           (SELECT sum(correct) FROM a WHERE a.system = w.system) AS after_correct,
           (SELECT sum(correct) / sum(n) FROM a WHERE a.system = w.system) AS after_acc,
           (SELECT sum(n_paired) FROM paired_concept p WHERE p.system = w.system) AS n_paired,
           (SELECT sum(only_before) FROM paired_concept p WHERE p.system = w.system)
               AS only_before,
           (SELECT sum(only_after) FROM paired_concept p WHERE p.system = w.system) AS only_after
    FROM weak_average w
    JOIN b ON b.system = w.system
    GROUP BY w.system, w.ord
), table5 AS (
    FROM concept_rows
    UNION ALL BY NAME FROM weak_average
    UNION ALL BY NAME FROM all_average
    UNION ALL BY NAME FROM overall
)
SELECT system, ord, row, kind, concept, n_concepts::INTEGER AS n_concepts,
       before_n::INTEGER AS before_n, before_correct::INTEGER AS before_correct,
       before_acc::DOUBLE AS before_acc,
       CASE WHEN kind IN ('concept', 'overall')
            THEN wilson_interval(before_correct, before_n).low END AS before_low,
       CASE WHEN kind IN ('concept', 'overall')
            THEN wilson_interval(before_correct, before_n).high END AS before_high,
       after_n::INTEGER AS after_n, after_correct::INTEGER AS after_correct,
       after_acc::DOUBLE AS after_acc,
       CASE WHEN kind IN ('concept', 'overall')
            THEN wilson_interval(after_correct, after_n).low END AS after_low,
       CASE WHEN kind IN ('concept', 'overall')
            THEN wilson_interval(after_correct, after_n).high END AS after_high,
       coalesce(n_paired, 0)::INTEGER AS n_paired, coalesce(only_before, 0)::INTEGER AS only_before,
       coalesce(only_after, 0)::INTEGER AS only_after
FROM table5
ORDER BY system, ord;

COMMENT ON MACRO TABLE conceptmath_targeted IS $$Paper Table 5 from two runs (before_run, after_run, k, grader_name := official): per system, a row per weak concept of before_run (its k lowest level-3 concepts, conceptmath_lowest_k) with before_acc and after_acc, then Avg Acc. (over k concepts), Avg Acc. (over N concepts) (means of concept accuracies) and Overall Acc.; n, right answers and 95% Wilson intervals per run (none for the means), McNemar counts (n_paired, only_before, only_after) over the problems both runs graded.$$;