-- ConceptMath (Wu et al. 2024). Layer 2: verdicts joined to the concept hierarchy;
-- layer 3: the paper's figures, each written as the paper defines it.
--
-- Items: group_id = the system (element_en, element_zh, middle_en, middle_zh); the payload keeps
-- the row's cate0, cate1, cate2 (levels 1..3 of the hierarchy). Concept names are the authors'
-- paths 'cate0', 'cate0/cate1', 'cate0/cate1/cate2', built from the three fields (a cate2 may
-- itself hold '/', e.g. 'mode/mean/median/range', so a path is never split).

-- One row per graded problem, with its system and its place in the hierarchy.
CREATE OR REPLACE VIEW conceptmath_item_verdicts AS
SELECT iv.run_id, iv.grader, iv.item_id,
       i.group_id                          AS system,
       i.payload->>'cate0'                 AS cate0,
       i.payload->>'cate1'                 AS cate1,
       i.payload->>'cate2'                 AS cate2,
       iv.correct
FROM item_verdicts iv
JOIN items i ON i.benchmark = 'conceptmath' AND i.item_id = iv.item_id
WHERE iv.benchmark = 'conceptmath';

-- Paper Table 2, one cell: accuracy of a run on a system (its setting is the run's).
-- A missing response counts wrong (the authors' rule); a failed call has no verdict and is
-- left out until retried.
CREATE OR REPLACE VIEW conceptmath_accuracy AS
SELECT run_id, grader, system,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM conceptmath_item_verdicts
GROUP BY run_id, grader, system;

-- A run's accuracy over all its problems, whatever systems it covers.
CREATE OR REPLACE VIEW conceptmath_run_accuracy AS
SELECT run_id, grader,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM conceptmath_item_verdicts
GROUP BY run_id, grader;

-- Concept accuracy at the three levels of the hierarchy (the authors' per-concept metric:
-- right / count over the problems under the concept).
CREATE OR REPLACE VIEW conceptmath_concept_accuracy AS
WITH by_level AS (
    SELECT run_id, grader, system, 1 AS level, cate0 AS concept, correct
    FROM conceptmath_item_verdicts
    UNION ALL
    SELECT run_id, grader, system, 2, cate0 || '/' || cate1, correct
    FROM conceptmath_item_verdicts
    UNION ALL
    SELECT run_id, grader, system, 3, cate0 || '/' || cate1 || '/' || cate2, correct
    FROM conceptmath_item_verdicts
)
SELECT run_id, grader, system, level, concept,
       count(*)                 AS n,
       n_correct(correct)       AS correct,
       accuracy_of(correct)     AS accuracy
FROM by_level
GROUP BY run_id, grader, system, level, concept;

-- Mean concept accuracy over all runs in the store (paper Fig. 5: a concept's accuracy
-- averaged across the evaluated models), per grader. Ordered: the same bits every time.
CREATE OR REPLACE VIEW conceptmath_mean_concept_accuracy AS
SELECT grader, system, level, concept,
       count(DISTINCT run_id)                      AS n_runs,
       avg(accuracy ORDER BY run_id)               AS mean_accuracy
FROM conceptmath_concept_accuracy
GROUP BY grader, system, level, concept;

-- The lowest concepts of a run ("unmastered", paper Sec. 4), ranked within the run's system
-- and level: rank 1 = lowest accuracy; ties go to the concept with more problems, then by name.
CREATE OR REPLACE VIEW conceptmath_unmastered AS
SELECT run_id, grader, system, level, concept, n, accuracy,
       row_number() OVER (PARTITION BY run_id, grader, system, level
                          ORDER BY accuracy, n DESC, concept) AS rank
FROM conceptmath_concept_accuracy;

-- Problems on which the two rule graders disagree, with the response they graded.
CREATE OR REPLACE VIEW conceptmath_grader_disagreement AS
SELECT o.run_id, o.item_id, o.system,
       o.correct                                   AS official,
       s.correct                                   AS strict,
       c.response
FROM conceptmath_item_verdicts o
JOIN conceptmath_item_verdicts s
  ON s.run_id = o.run_id AND s.item_id = o.item_id AND s.grader = 'strict'
JOIN item_verdicts iv
  ON iv.run_id = o.run_id AND iv.item_id = o.item_id AND iv.grader = 'official'
JOIN responses c ON c.response_id = iv.response_id
WHERE o.grader = 'official' AND o.correct <> s.correct;

-- Paper Table 2, one model's row: for the run `rid`, the runs of the same model on ConceptMath,
-- one per prompt setting (the run itself for its own setting; otherwise the latest started),
-- and their accuracy on each system under `grader_name`.
CREATE OR REPLACE MACRO conceptmath_table2(rid, grader_name) AS TABLE
WITH me AS (
    SELECT model, setting FROM runs WHERE run_id = rid
), chosen AS (
    SELECT r.setting, r.run_id
    FROM runs r, me
    WHERE r.benchmark = 'conceptmath' AND r.model = me.model
    QUALIFY row_number() OVER (PARTITION BY r.setting
                               ORDER BY (r.run_id = rid) DESC, r.started_at DESC, r.run_id) = 1
)
SELECT ch.setting, ch.run_id, a.system, a.n, a.correct, a.accuracy
FROM chosen ch
JOIN conceptmath_accuracy a ON a.run_id = ch.run_id AND a.grader = grader_name;
