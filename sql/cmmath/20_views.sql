-- CMMaTH (Li et al. 2024). Layer 2: every answer of a run with each grader's verdict on it;
-- layer 3: the figures as the paper defines them (cmmath_paper_*); the authors' own figures,
-- as their code computes them, are 30_official.sql (cmmath_official_*).
--
-- Accuracy is over ALL answers: an answer a grader left undecided (the rule stage could not
-- read it and no judge has decided it) is counted, as not right, and shown separately
-- (n_undecided, coverage); a figure is never an accuracy over the decided answers only.
-- Failed calls are no answers (never counted as wrong); a refusal or a missing response is.

-- A store made by an older mathprobe may hold views of these names computing accuracy over the
-- decided answers only: dropped first, so the definitions below replace them whatever columns
-- they had.
DROP VIEW IF EXISTS cmmath_ssr;
DROP VIEW IF EXISTS cmmath_point_accuracy;
DROP VIEW IF EXISTS cmmath_grade_accuracy;
DROP VIEW IF EXISTS cmmath_category_accuracy;
DROP VIEW IF EXISTS cmmath_accuracy;
DROP VIEW IF EXISTS cmmath_grader_coverage;
DROP VIEW IF EXISTS cmmath_item_verdicts;

-- The answers of CMMaTH runs (items whose response that counts is an answer), judge runs not;
-- each layer here for a set of runs (sql/core/10_current.sql: `runs` names run_data or
-- live_run_spans), its view over run_data.
CREATE OR REPLACE MACRO cmmath_answer_ids_of(runs) AS TABLE
SELECT k.run_id, k.item_id, k.answer_id
FROM current_response_ids_of(runs) k
JOIN runs r ON r.run_id = k.run_id
WHERE r.benchmark = 'cmmath' AND r.setting NOT IN ('judge', 'judge-audit')
  AND k.answer_id IS NOT NULL;

CREATE OR REPLACE VIEW cmmath_answer_ids AS
FROM cmmath_answer_ids_of('run_data');

COMMENT ON VIEW cmmath_answer_ids IS 'CMMaTH: the answers of each run (judge runs excluded): items whose response that counts is an answer (ok, refused, missing), with its response id.';
COMMENT ON COLUMN cmmath_answer_ids.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_answer_ids.item_id IS 'The CMMaTH item (items.item_id).';
COMMENT ON COLUMN cmmath_answer_ids.answer_id IS 'the response that counts (responses.response_id)';


-- Layer 2: one row per answer of a CMMaTH run and grader of that run (every grader that gave
-- the run a verdict, and 'rules' always), with the question's labels; `correct` is NULL where
-- that grader left the answer undecided. Judge runs (setting judge / judge-audit) hold the
-- judge's replies, not answers: they are not here.
-- (Written without CTEs used twice: DuckDB would compute such a CTE for every run before a
-- run filter applies; views and subqueries take the filter. Verdicts are found by the response
-- they grade, not by run_id, as in item_verdicts_of.)
CREATE OR REPLACE MACRO cmmath_answers_of(runs) AS TABLE
SELECT a.run_id, g.grader, a.item_id,
       ci.answer_type, ci.grade_id, ci.grade_group, ci.category, ci.answer, ci.official_point,
       v.correct, v.extracted
FROM cmmath_answer_ids_of(runs) a
JOIN (SELECT a.run_id, v.grader                 -- every grader with a verdict on an answer
      FROM verdicts v
      JOIN cmmath_answer_ids_of(runs) a
        ON a.item_id = v.item_id AND a.answer_id = v.response_id
      UNION
      SELECT run_id, 'rules' FROM runs
      WHERE benchmark = 'cmmath' AND setting NOT IN ('judge', 'judge-audit')) g
  ON g.run_id = a.run_id
JOIN cmmath_all_items ci ON ci.item_id = a.item_id
LEFT JOIN verdicts v
       ON v.item_id = a.item_id AND v.grader = g.grader AND v.response_id = a.answer_id;

CREATE OR REPLACE VIEW cmmath_answers AS
FROM cmmath_answers_of('run_data');

COMMENT ON VIEW cmmath_answers IS 'CMMaTH layer 2: every answer of a run (failed calls excluded) under every grader of the run, with the question''s labels; correct NULL = that grader left it undecided.';
COMMENT ON COLUMN cmmath_answers.correct IS 'the grader''s verdict; NULL: undecided (rules could not read it, no judge decided it, or the judge''s reply had no verdict)';
COMMENT ON COLUMN cmmath_answers.extracted IS 'what the grader read as the answer (the authors'' judge: its Yes/No)';


-- How many of a run's answers each grader decided.
CREATE OR REPLACE VIEW cmmath_coverage AS
SELECT run_id, grader,
       count(*)                                AS n_answers,
       count(correct)                          AS n_decided,
       count(*) - count(correct)               AS n_undecided,
       count(correct) / count(*)               AS coverage
FROM cmmath_answers
GROUP BY run_id, grader;

COMMENT ON VIEW cmmath_coverage IS 'CMMaTH: how many of a run''s answers each grader decided.';
COMMENT ON COLUMN cmmath_coverage.n_answers IS 'answers of the run (ok, refused, missing; failed calls are not answers)';
COMMENT ON COLUMN cmmath_coverage.n_decided IS 'answers the grader gave a verdict';
COMMENT ON COLUMN cmmath_coverage.n_undecided IS 'answers the grader left undecided (counted as not right in every figure)';
COMMENT ON COLUMN cmmath_coverage.coverage IS 'n_decided / n_answers';

-- Layer 3, the paper's definitions. Paper Table 4, "Overall" and the answer types:
-- accuracy = right answers / all answers, over all questions ('all') and per answer type.
-- (One pass over the answers: the run's rows and its rows per answer type, 'all' first.)
CREATE OR REPLACE VIEW cmmath_paper_accuracy AS
SELECT run_id, grader,
       CASE WHEN grouping(answer_type) = 1 THEN 'all' ELSE answer_type END AS answer_type,
       count(*)                                 AS n,
       count(*) - count(correct)                AS n_undecided,
       n_correct(correct)                       AS correct,
       accuracy_of(correct)                     AS accuracy,
       (n_correct(correct) + count(*) - count(correct)) / count(*) AS accuracy_max
FROM cmmath_answers
GROUP BY GROUPING SETS ((run_id, grader), (run_id, grader, answer_type));

COMMENT ON VIEW cmmath_paper_accuracy IS 'CMMaTH, the paper''s definition (Table 4, overall and answer types): accuracy = right / all answers; undecided answers count as not right and are shown apart.';
COMMENT ON COLUMN cmmath_paper_accuracy.answer_type IS 'all | choice | free_form';
COMMENT ON COLUMN cmmath_paper_accuracy.n IS 'answers';
COMMENT ON COLUMN cmmath_paper_accuracy.n_undecided IS 'answers the grader left undecided (in n, not in correct)';
COMMENT ON COLUMN cmmath_paper_accuracy.correct IS 'answers graded right';
COMMENT ON COLUMN cmmath_paper_accuracy.accuracy IS 'correct / n, a fraction: every undecided answer counted as not right';
COMMENT ON COLUMN cmmath_paper_accuracy.accuracy_max IS '(correct + n_undecided) / n: the accuracy if every undecided answer were right; the true figure lies between accuracy and this';

-- Paper Table 4, the visual-subject columns: accuracy per multimodal category.
CREATE OR REPLACE VIEW cmmath_paper_category_accuracy AS
SELECT run_id, grader, category,
       count(*)                   AS n,
       count(*) - count(correct)  AS n_undecided,
       n_correct(correct)         AS correct,
       accuracy_of(correct)       AS accuracy
FROM cmmath_answers
GROUP BY run_id, grader, category;

COMMENT ON VIEW cmmath_paper_category_accuracy IS 'CMMaTH, the paper''s definition (Table 4, visual subjects): accuracy = right / all answers per multimodal category.';
COMMENT ON COLUMN cmmath_paper_category_accuracy.category IS 'visual subject (metadata.multimodal-category)';
COMMENT ON COLUMN cmmath_paper_category_accuracy.n_undecided IS 'answers left undecided (in n, not in correct)';
COMMENT ON COLUMN cmmath_paper_category_accuracy.accuracy IS 'correct / n, a fraction';

-- Paper Table 4, the grade columns: accuracy per grade group.
CREATE OR REPLACE VIEW cmmath_paper_grade_accuracy AS
SELECT run_id, grader, grade_group,
       count(*)                   AS n,
       count(*) - count(correct)  AS n_undecided,
       n_correct(correct)         AS correct,
       accuracy_of(correct)       AS accuracy
FROM cmmath_answers
GROUP BY run_id, grader, grade_group;

COMMENT ON VIEW cmmath_paper_grade_accuracy IS 'CMMaTH, the paper''s definition (Table 4, grades): accuracy = right / all answers per grade group.';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.grade_group IS '1 elementary, 2 junior, 3 senior';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.n_undecided IS 'answers left undecided (in n, not in correct)';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.accuracy IS 'correct / n, a fraction';

-- Accuracy per leaf knowledge point: a question with several leaf points counts toward each.
CREATE OR REPLACE VIEW cmmath_paper_point_accuracy AS
SELECT a.run_id, a.grader, p.point,
       count(*)                     AS n,
       count(*) - count(a.correct)  AS n_undecided,
       n_correct(a.correct)         AS correct,
       accuracy_of(a.correct)       AS accuracy
FROM cmmath_answers a
JOIN cmmath_all_item_points p ON p.item_id = a.item_id
GROUP BY a.run_id, a.grader, p.point;

COMMENT ON VIEW cmmath_paper_point_accuracy IS 'CMMaTH, the paper''s definition: accuracy per leaf knowledge point (a question counts toward each of its leaves).';
COMMENT ON COLUMN cmmath_paper_point_accuracy.point IS 'a leaf of the knowledge_point path (or the skill)';
COMMENT ON COLUMN cmmath_paper_point_accuracy.n_undecided IS 'answers left undecided (in n, not in correct)';
COMMENT ON COLUMN cmmath_paper_point_accuracy.accuracy IS 'correct / n, a fraction';

-- Knowledge-point mastery (paper, "SSR"): the share of knowledge points whose accuracy is
-- strictly greater than alpha, alpha in {0.1, 0.2, 0.3, 0.6}, over the leaf points with at
-- least one answer in the run. Compared in integers (10 * correct > tenths * n), so an accuracy
-- equal to alpha (3 of 10 at alpha 0.3) is never counted by a rounding accident.
CREATE OR REPLACE VIEW cmmath_paper_ssr AS
WITH alphas(tenths) AS (VALUES (1), (2), (3), (6))
SELECT pa.run_id, pa.grader,
       a.tenths / 10                                                  AS alpha,
       count(*)                                                       AS n_points,
       count(*) FILTER (10 * pa.correct > a.tenths * pa.n) / count(*) AS ssr
FROM cmmath_paper_point_accuracy pa
CROSS JOIN alphas a
GROUP BY pa.run_id, pa.grader, a.tenths;

COMMENT ON VIEW cmmath_paper_ssr IS 'CMMaTH, the paper''s definition of SSR@alpha: share of leaf knowledge points with accuracy (right / all answers) strictly above alpha.';
COMMENT ON COLUMN cmmath_paper_ssr.alpha IS '0.1, 0.2, 0.3 or 0.6 (the paper''s)';
COMMENT ON COLUMN cmmath_paper_ssr.n_points IS 'leaf points with at least one answer in the run';
COMMENT ON COLUMN cmmath_paper_ssr.ssr IS 'share of those points with accuracy > alpha, a fraction';
