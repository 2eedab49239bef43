-- CMMaTH (Li et al. 2024). Layer 2: verdicts joined to the question labels; layer 3: the
-- paper's figures (Table 4 and the knowledge-point mastery SSR@alpha).

-- Layer 2: one row per graded answer, with the question's labels. An answer the rule stage
-- left undecided has no verdict from it, so it is in no figure of that grader (see
-- cmmath_grader_coverage); a failed call has no verdict at all (item_verdicts).
CREATE OR REPLACE VIEW cmmath_item_verdicts AS
SELECT iv.run_id, iv.grader, iv.item_id,
       ci.answer_type, ci.grade_id, ci.grade_group, ci.category,
       iv.correct, iv.extracted
FROM item_verdicts iv
JOIN items i        ON i.benchmark = 'cmmath' AND i.item_id = iv.item_id
JOIN cmmath_items ci ON ci.item_id = iv.item_id
WHERE iv.benchmark = 'cmmath';

-- How many of a run's answers each grader decided. 'rules' is listed for every CMMaTH run,
-- also when it decided nothing.
CREATE OR REPLACE VIEW cmmath_grader_coverage AS
WITH answers AS (
    SELECT c.run_id, count(*) AS n_answers
    FROM current_responses c
    JOIN runs r ON r.run_id = c.run_id
    WHERE r.benchmark = 'cmmath' AND c.status IN ('ok', 'refused', 'missing')
    GROUP BY c.run_id
), graders AS (
    SELECT DISTINCT run_id, grader FROM cmmath_item_verdicts
    UNION
    SELECT run_id, 'rules' FROM runs WHERE benchmark = 'cmmath'
), decided AS (
    SELECT run_id, grader, count(*) AS n_decided FROM cmmath_item_verdicts GROUP BY run_id, grader
)
SELECT g.run_id, g.grader,
       coalesce(a.n_answers, 0)                                AS n_answers,
       coalesce(d.n_decided, 0)                                AS n_decided,
       coalesce(a.n_answers, 0) - coalesce(d.n_decided, 0)     AS n_undecided
FROM graders g
LEFT JOIN answers a ON a.run_id = g.run_id
LEFT JOIN decided d ON d.run_id = g.run_id AND d.grader = g.grader;

-- Layer 3. Paper Table 4, "Overall" and the answer-type columns: accuracy = correct answers /
-- graded answers, over all questions ('all') and per answer type ('choice', 'free_form').
CREATE OR REPLACE VIEW cmmath_accuracy AS
SELECT run_id, grader, 'all' AS answer_type,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM cmmath_item_verdicts
GROUP BY run_id, grader
UNION ALL
SELECT run_id, grader, answer_type,
       count(*), n_correct(correct), accuracy_of(correct)
FROM cmmath_item_verdicts
GROUP BY run_id, grader, answer_type;

-- Paper Table 4, the visual-subject columns: accuracy per multimodal category (Bar Chart,
-- Plane Geometry, Flow Chart, ...).
CREATE OR REPLACE VIEW cmmath_category_accuracy AS
SELECT run_id, grader, category,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM cmmath_item_verdicts
GROUP BY run_id, grader, category;

-- Paper Table 4, the grade columns: accuracy per grade group (1 elementary, 2 junior,
-- 3 senior).
CREATE OR REPLACE VIEW cmmath_grade_accuracy AS
SELECT run_id, grader, grade_group,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM cmmath_item_verdicts
GROUP BY run_id, grader, grade_group;

-- Accuracy per knowledge point: the questions labelled with the point (a question with several
-- leaf points counts toward each of them).
CREATE OR REPLACE VIEW cmmath_point_accuracy AS
SELECT v.run_id, v.grader, p.point,
       count(*)                 AS n,
       n_correct(v.correct)     AS correct,
       accuracy_of(v.correct)   AS accuracy
FROM cmmath_item_verdicts v
JOIN cmmath_item_points p ON p.item_id = v.item_id
GROUP BY v.run_id, v.grader, p.point;

-- Knowledge-point mastery (paper, Sec. "SSR"): "the share of knowledge points whose accuracy is
-- strictly greater than alpha", alpha in {0.1, 0.2, 0.3, 0.6}, over the points with at least one
-- graded question in the run. Compared in integers (10 * correct > tenths * n), so an accuracy
-- equal to alpha (e.g. 3 of 10 at alpha 0.3) is never counted by a rounding accident.
CREATE OR REPLACE VIEW cmmath_ssr AS
WITH alphas(tenths) AS (VALUES (1), (2), (3), (6))
SELECT pa.run_id, pa.grader,
       a.tenths / 10                                              AS alpha,
       count(*)                 AS n_points,
       count(*) FILTER (10 * pa.correct > a.tenths * pa.n) / count(*) AS ssr
FROM cmmath_point_accuracy pa
CROSS JOIN alphas a
GROUP BY pa.run_id, pa.grader, a.tenths;
