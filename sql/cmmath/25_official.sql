-- CMMaTH: the authors' own figures, as their code computes them (github zzli2022/CMMaTH,
-- tool/statics_acc.py), beside the paper's definitions (20_views.sql). What differs:
--   * per group, score = right / (count + 1) x 100, rounded to one decimal as Python's round()
--     does (the +1 keeps an empty group from dividing by zero, and lowers every group's
--     figure: 3 right of 3 scores 75.0);
--   * groups: the visual subjects of their fixed list (others pooled as 'UnKnown', whose right
--     answers they never count), grade_id 1..12 (not the three grade groups), and question
--     types with choice split by the reference answer into single ("A\n".."D\n") and multi;
--   * SSR: ONE knowledge point per question (the parent of the innermost point, by their
--     bracket walk; '' when there is none; questions the walk cannot read are skipped), rate =
--     right / (count + 1), for alpha = 0, 0.1, ..., 0.8;
--   * "right" is the grader's verdict TRUE (theirs: output_correct == 'Yes'); an undecided
--     answer is not right.

-- Python's round(x, 1): the double's exact value to one decimal, ties to even (6.25 -> 6.2).
-- DuckDB's round() rounds half away from zero after scaling (6.25 -> 6.3); fmt's formatting
-- rounds the exact value like Python (checked for every right/(count + 1) with count <= 2000).
CREATE OR REPLACE MACRO python_round_1(x) AS CAST(format('{:.1f}', x) AS DOUBLE);

-- The groups their script reports, in its order (its dicts' keys): every group is reported,
-- an empty one as 0.0.
CREATE OR REPLACE VIEW cmmath_official_keys AS
SELECT * FROM (VALUES
    ('subject', 'Flow Chart', 1), ('subject', 'Bar Chart', 2), ('subject', 'Scatter Plot', 3),
    ('subject', 'Line Plot', 4), ('subject', 'Fan Chart', 5), ('subject', 'LiDAR Chart', 6),
    ('subject', 'Visual-Table', 7), ('subject', 'Three View', 8), ('subject', 'Folded Image', 9),
    ('subject', 'Analytic Geometry', 10), ('subject', 'Solid Geometry', 11),
    ('subject', 'Plane Geometry', 12), ('subject', 'Venn diagram', 13),
    ('subject', 'Abtract Analogy diagram', 14), ('subject', 'UnKnown', 15),
    ('grade_id', '1', 1), ('grade_id', '2', 2), ('grade_id', '3', 3), ('grade_id', '4', 4),
    ('grade_id', '5', 5), ('grade_id', '6', 6), ('grade_id', '7', 7), ('grade_id', '8', 8),
    ('grade_id', '9', 9), ('grade_id', '10', 10), ('grade_id', '11', 11),
    ('grade_id', '12', 12), ('grade_id', 'UnKnown', 13),
    ('question_type', 'choice', 1), ('question_type', 'free_form', 2),
    ('question_type', 'single_choice', 3), ('question_type', 'multi_choice', 4),
    ('question_type', 'UnKnown', 5)
) AS k(breakdown, key, position);

COMMENT ON VIEW cmmath_official_keys IS 'CMMaTH: the groups the authors'' statics_acc.py reports per breakdown, in its order (their dicts'' keys; ''Abtract'' spelled as theirs and the data''s).';
COMMENT ON COLUMN cmmath_official_keys.breakdown IS 'subject | grade_id | question_type';
COMMENT ON COLUMN cmmath_official_keys.key IS 'the group';
COMMENT ON COLUMN cmmath_official_keys.position IS 'its place in their report';

-- Layer 2 for their figures: each answer's group in each breakdown (labels outside their lists
-- pooled as 'UnKnown'), one row per answer; `*_known` says the group is one their dicts name
-- (they count an answer pooled into 'UnKnown' but never right).
-- (Their lists are read once, as three lists an answer's labels are looked up in: a join per
-- breakdown cost a run's question a tenth more.)
CREATE OR REPLACE MACRO cmmath_official_groups_of(runs) AS TABLE
WITH typed AS (
    SELECT a.*, coalesce(a.correct, false) AS is_right,
           CASE WHEN a.answer_type = 'choice' AND a.answer IN ('A' || chr(10), 'B' || chr(10),
                                                                'C' || chr(10), 'D' || chr(10))
                THEN 'single_choice'
                WHEN a.answer_type = 'choice' THEN 'multi_choice'
                ELSE a.answer_type END AS question_type
    FROM cmmath_answers_of(runs) a
), known AS (
    SELECT t.*,
           list_contains(k.subjects, t.category)                  AS subject_known,
           list_contains(k.grades, CAST(t.grade_id AS VARCHAR))   AS grade_known,
           list_contains(k.types, t.question_type)                AS type_known
    FROM typed t
    CROSS JOIN (SELECT list(key) FILTER (breakdown = 'subject')       AS subjects,
                       list(key) FILTER (breakdown = 'grade_id')      AS grades,
                       list(key) FILTER (breakdown = 'question_type') AS types
                FROM cmmath_official_keys) k
)
SELECT * EXCLUDE (subject_known, grade_known, type_known),
       CASE WHEN subject_known THEN category ELSE 'UnKnown' END AS subject_key,
       coalesce(subject_known, false) AS subject_known,
       CASE WHEN grade_known THEN CAST(grade_id AS VARCHAR) ELSE 'UnKnown' END AS grade_key,
       coalesce(grade_known, false) AS grade_known,
       CASE WHEN type_known THEN question_type ELSE 'UnKnown' END AS type_key,
       coalesce(type_known, false) AS type_known
FROM known;

-- The same, one row per answer and breakdown, and whether their script counts it right there.
CREATE OR REPLACE MACRO cmmath_official_answers_of(runs) AS TABLE
SELECT o.run_id, o.grader, o.item_id, g.breakdown, g.key,
       o.is_right AND g.known               AS counted_right,
       o.is_right
FROM cmmath_official_groups_of(runs) o
CROSS JOIN LATERAL (VALUES ('subject', o.subject_key, o.subject_known),
                           ('grade_id', o.grade_key, o.grade_known),
                           ('question_type', o.type_key, o.type_known)) AS g(breakdown, key, known);

CREATE OR REPLACE VIEW cmmath_official_answers AS
FROM cmmath_official_answers_of('run_data');

COMMENT ON VIEW cmmath_official_answers IS 'CMMaTH, the authors'' code: each answer''s group per breakdown as their statics_acc.py assigns it, and whether it counts as right there.';
COMMENT ON COLUMN cmmath_official_answers.key IS 'the group (labels outside their lists pooled as UnKnown)';
COMMENT ON COLUMN cmmath_official_answers.counted_right IS 'graded right and in a group their dicts name (their script never counts right answers pooled into UnKnown)';

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

COMMENT ON VIEW cmmath_official_scores IS 'CMMaTH, the authors'' code (tool/statics_acc.py): scores per visual subject, grade_id and question type = right / (count + 1) x 100, overall = right / all x 100, rounded to 1 decimal like Python''s round(); right = the grader''s verdict TRUE (undecided: not right).';
COMMENT ON COLUMN cmmath_official_scores.breakdown IS 'overall | subject | grade_id | question_type';
COMMENT ON COLUMN cmmath_official_scores.key IS 'the group (overall: all; per breakdown also (total), the total their report ends with)';
COMMENT ON COLUMN cmmath_official_scores.position IS 'the group''s place in their report';
COMMENT ON COLUMN cmmath_official_scores.n IS 'answers in the group (their count)';
COMMENT ON COLUMN cmmath_official_scores.correct IS 'answers their script counts right there';
COMMENT ON COLUMN cmmath_official_scores.score IS 'percent, as they round it: groups right / (n + 1) x 100, overall and (total) right / n x 100';

-- The authors' SSR: one knowledge point per question (cmmath_items.official_point; questions
-- without one are skipped), rate = right / (count + 1) per point, SSR@alpha = share of points
-- with rate > alpha, for alpha = 0, 0.1, ..., 0.8 (compared as their floats are).
CREATE OR REPLACE VIEW cmmath_official_ssr AS
WITH rates AS (
    SELECT run_id, grader, official_point AS point,
           count(*) FILTER (correct) / (count(*) + 1) AS rate
    FROM cmmath_answers
    WHERE official_point IS NOT NULL
    GROUP BY run_id, grader, official_point
), alphas AS (
    SELECT i / 10 AS alpha FROM range(0, 9) t(i)
)
SELECT r.run_id, r.grader, a.alpha,
       count(*)                                   AS n_points,
       count(*) FILTER (r.rate > a.alpha) / count(*) AS ssr
FROM rates r
CROSS JOIN alphas a
GROUP BY r.run_id, r.grader, a.alpha;

COMMENT ON VIEW cmmath_official_ssr IS 'CMMaTH, the authors'' code (statics_knowledge_complete_rate): share of knowledge points (one per question, the parent of the innermost) whose rate right / (count + 1) exceeds alpha.';
COMMENT ON COLUMN cmmath_official_ssr.alpha IS '0, 0.1, ..., 0.8 (their thresholds)';
COMMENT ON COLUMN cmmath_official_ssr.n_points IS 'points counted (their len(kn_dict))';
COMMENT ON COLUMN cmmath_official_ssr.ssr IS 'share of points with rate > alpha, a fraction (they print it unrounded)';
