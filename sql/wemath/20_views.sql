-- WE-MATH (Qiao et al. 2024). Layer 2: verdicts joined to the problem structure, whole problems
-- only; layer 3: the paper's figures, each written as the paper defines it.
--
-- A problem counts only when every one of its questions has a verdict. A failed call
-- (`infra_failed`, never graded), a reply cut at the token cap before its answer (`truncated`,
-- never graded) or a question not asked yet leaves its problem out of EVERY
-- figure alike (N, S1-S3, the categories, the concepts), never counted as wrong; the report
-- says how many (wemath_problem_coverage). `--retry-failed` brings them back.

-- Each layer under the figures is a table macro over a set of runs (run_data: all runs, or
-- live_run_spans: those whose stored figures are not current; see sql/core/10_current.sql),
-- and the view of its name is the macro over all runs. The figures stored per run (a line
-- `-- @stored <view>` after their macro `<view>_of(runs)`: mathprobe/store/stored_sql.py writes out
-- the table <view>_stored and the view) read their stored rows where current and compute only
-- the other runs.

-- One row per graded question, with its place in the composite problem.
CREATE OR REPLACE MACRO wemath_question_verdicts_of(runs) AS TABLE
SELECT iv.run_id, iv.grader, iv.item_id,
       i.group_id                                   AS problem_id,
       i.part                                       AS key,          -- 2steps_1 .. 3steps_multi
       CAST(left(i.part, 1) AS INTEGER)             AS steps,        -- 2 or 3
       i.part LIKE '%multi'                         AS is_composite,
       i.concept,
       iv.correct
FROM item_verdicts_of(runs) iv
JOIN items i ON i.benchmark = 'wemath' AND i.item_id = iv.item_id
WHERE iv.benchmark = 'wemath';

CREATE OR REPLACE VIEW wemath_question_verdicts AS
FROM wemath_question_verdicts_of('run_data');

-- One row per composite problem: its one-step results and its composite result. A problem is
-- complete when every one-step question and the composite question have a verdict.
CREATE OR REPLACE MACRO wemath_problem_verdicts_of(runs) AS TABLE
SELECT run_id, grader, problem_id,
       any_value(steps)                              AS steps,
       count(*) FILTER (NOT is_composite)            AS n_subs,
       bool_and(correct) FILTER (NOT is_composite)   AS all_subs,
       bool_or(correct)  FILTER (NOT is_composite)   AS any_subs,
       bool_or(correct)  FILTER (is_composite)       AS multi,
       count(*) FILTER (NOT is_composite) = any_value(steps)
         AND count(*) FILTER (is_composite) = 1      AS complete
FROM wemath_question_verdicts_of(runs)
GROUP BY run_id, grader, problem_id;

CREATE OR REPLACE VIEW wemath_problem_verdicts AS
FROM wemath_problem_verdicts_of('run_data');

-- The questions every figure is computed from: those of complete problems only.
-- (The questions are computed once and grouped per problem here: complete exactly as in
-- wemath_problem_verdicts, every one-step question and the composite one graded.)
CREATE OR REPLACE MACRO wemath_item_verdicts_of(runs) AS TABLE
WITH q AS MATERIALIZED (FROM wemath_question_verdicts_of(runs))
SELECT q.*
FROM q
JOIN (SELECT run_id, grader, problem_id
      FROM q
      GROUP BY run_id, grader, problem_id
      HAVING count(*) FILTER (NOT is_composite) = any_value(steps)
         AND count(*) FILTER (is_composite) = 1) complete_problems
  USING (run_id, grader, problem_id);

CREATE OR REPLACE VIEW wemath_item_verdicts AS
FROM wemath_item_verdicts_of('run_data');

-- Per run and problem: how many of its questions the run has answered (a response that counts:
-- ok, refused or missing), how many failed (infra_failed) and how many were cut at the token
-- cap before their answer (truncated), whatever the grader. A problem
-- the run asked anything of but has not answered whole is left out of every figure.
CREATE OR REPLACE VIEW wemath_problem_coverage AS
SELECT c.run_id, i.group_id                                       AS problem_id,
       CAST(left(any_value(i.part), 1) AS INTEGER) + 1            AS n_questions,
       count(*) FILTER (c.status IN ('ok', 'refused', 'missing'))  AS n_answered,
       count(*) FILTER (c.status = 'infra_failed')                AS n_failed,
       count(*) FILTER (c.status = 'truncated')                   AS n_truncated,
       count(*) FILTER (c.status IN ('ok', 'refused', 'missing'))
         = CAST(left(any_value(i.part), 1) AS INTEGER) + 1        AS complete
FROM current_responses c
JOIN runs r ON r.run_id = c.run_id AND r.benchmark = 'wemath'
JOIN items i ON i.benchmark = 'wemath' AND i.item_id = c.item_id
GROUP BY c.run_id, i.group_id;

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

-- The paper's weights (alpha 0, beta 0.5), stored per run.
CREATE OR REPLACE MACRO wemath_four_dimensional_of(runs) AS TABLE
FROM wemath_four_dimensional_scored(runs := runs);
-- @stored wemath_four_dimensional

-- Paper Table 1, first columns: S1 over all one-step questions, S2/S3 over the composite
-- questions of two- and three-step problems (of complete problems, as every figure).
CREATE OR REPLACE MACRO wemath_step_accuracy_of(runs) AS TABLE
SELECT run_id, grader,
       avg(correct::INTEGER) FILTER (NOT is_composite)             AS s1,
       avg(correct::INTEGER) FILTER (is_composite AND steps = 2)   AS s2,
       avg(correct::INTEGER) FILTER (is_composite AND steps = 3)   AS s3
FROM wemath_item_verdicts_of(runs)
GROUP BY run_id, grader;
-- @stored wemath_step_accuracy

-- Accuracy of the one-step questions labelled with each of the 67 leaf concepts.
CREATE OR REPLACE MACRO wemath_concept_accuracy_of(runs) AS TABLE
SELECT run_id, grader,
       concept,
       count(*)                       AS n,
       count(*) FILTER (correct)      AS correct,
       avg(correct::INTEGER)          AS accuracy
FROM wemath_item_verdicts_of(runs)
WHERE NOT is_composite
GROUP BY run_id, grader, concept;
-- @stored wemath_concept_accuracy

-- Paper Table 1, the 12 second-level categories: the unweighted mean of the category's leaf
-- accuracies (leaves without questions in the run do not take part).
CREATE OR REPLACE VIEW wemath_category_accuracy AS
SELECT ca.run_id, ca.grader,
       k.root2                        AS category,
       avg(ca.accuracy ORDER BY ca.concept) AS accuracy,   -- ordered: same bits every time
       count(*)                       AS n_concepts,
       sum(ca.n)                      AS n
FROM wemath_concept_accuracy ca
JOIN wemath_knowledge k ON k.leaf = ca.concept
GROUP BY ca.run_id, ca.grader, k.root2;

COMMENT ON VIEW wemath_question_verdicts IS 'Every graded WE-MATH question of a run, with its problem, key, steps and leaf concept; complete or not.';
COMMENT ON VIEW wemath_problem_verdicts IS 'Per run, grader and composite problem: its one-step results (all / any right), its composite result, and whether every question has a verdict (complete).';
COMMENT ON VIEW wemath_item_verdicts IS 'The graded questions of complete problems only: what every WE-MATH figure (N, S1-S3, categories, concepts) is computed from.';
COMMENT ON VIEW wemath_problem_coverage IS 'Per run and problem: questions it has, answered, failed (infra_failed), cut at the token cap (truncated); an incomplete problem is left out of every figure.';
COMMENT ON COLUMN wemath_problem_coverage.n_questions IS 'Questions of the problem: its 2 or 3 one-step questions and the composite one.';
COMMENT ON COLUMN wemath_problem_coverage.n_answered IS 'Questions with a response that counts (ok, refused or missing: graded).';
COMMENT ON COLUMN wemath_problem_coverage.n_failed IS 'Questions whose call failed (infra_failed): never graded, re-asked by --retry-failed.';
COMMENT ON COLUMN wemath_problem_coverage.n_truncated IS 'Questions whose reply was cut at the token cap inside the reasoning or before the answer (truncated): never graded, re-asked by a larger --max-tokens or --retry-failed.';
