-- CMMaTH: the authors' own figures, as their code computes them (github zzli2022/CMMaTH,
-- tool/statics_acc.py), beside the paper's definitions (sql/cmmath/figures/). What differs:
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
