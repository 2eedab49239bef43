-- ConceptMath (Wu et al. 2024). Layer 2: verdicts joined to the concept hierarchy;
-- layer 3: the paper's figures, each written as the paper defines it.
--
-- Items: conceptmath_items (05_items.sql) holds each problem's system (element_en, element_zh,
-- middle_en, middle_zh) and its cate0, cate1, cate2 (levels 1..3 of the hierarchy, from the
-- data row as `items.payload` keeps it). Concept names are the authors'
-- paths 'cate0', 'cate0/cate1', 'cate0/cate1/cate2', built from the three fields (a cate2 may
-- itself hold '/', e.g. 'mode/mean/median/range', so a path is never split).

-- One row per graded problem, with its system and its place in the hierarchy, for a set of runs
-- (sql/core/10_current.sql: `runs` names run_data or live_run_spans).
CREATE OR REPLACE MACRO conceptmath_item_verdicts_of(runs) AS TABLE
SELECT iv.run_id, iv.grader, iv.item_id, i.system, i.cate0, i.cate1, i.cate2, iv.correct
FROM item_verdicts_of(runs) iv
JOIN conceptmath_items i ON i.item_id = iv.item_id
WHERE iv.benchmark = 'conceptmath';

CREATE OR REPLACE VIEW conceptmath_item_verdicts AS
FROM conceptmath_item_verdicts_of('run_data');

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
CREATE OR REPLACE MACRO conceptmath_concept_accuracy_of(runs) AS TABLE
SELECT v.run_id, v.grader, v.system, l.level, l.concept,
       count(*)                 AS n,
       n_correct(v.correct)     AS correct,
       accuracy_of(v.correct)   AS accuracy
FROM conceptmath_item_verdicts_of(runs) v
CROSS JOIN LATERAL (VALUES (1, v.cate0),                      -- each problem at each level
                           (2, v.cate0 || '/' || v.cate1),
                           (3, v.cate0 || '/' || v.cate1 || '/' || v.cate2)) AS l(level, concept)
GROUP BY v.run_id, v.grader, v.system, l.level, l.concept;

-- Stored per run (mathprobe/store/stored_sql.py): a run's ~600 concept rows (and
-- conceptmath_unmastered's ranking of them) are read, not recomputed from its verdicts, while
-- its data is unchanged.
-- @stored conceptmath_concept_accuracy

-- The runs behind the mean concept accuracy (paper Fig. 5, which averages over models): zero-shot
-- runs only (setting 'zs'; never chain-of-thought, few-shot, probe or imported runs, whose prompt
-- is not zero-shot or not known), one per model and system: the run with the most graded
-- problems of that system, then the latest started, then the first by run id.
CREATE OR REPLACE VIEW conceptmath_mean_concept_runs AS
SELECT a.grader, r.model, a.system, a.run_id, a.n, r.started_at
FROM conceptmath_accuracy a
JOIN runs r ON r.run_id = a.run_id
WHERE r.setting = 'zs'
QUALIFY row_number() OVER (PARTITION BY a.grader, r.model, a.system
                           ORDER BY a.n DESC, r.started_at DESC, a.run_id) = 1;

-- Mean concept accuracy (paper Fig. 5): a concept's accuracy averaged across models, each model
-- by its chosen zero-shot run (conceptmath_mean_concept_runs), per grader. Ordered: the same
-- bits every time.
CREATE OR REPLACE VIEW conceptmath_mean_concept_accuracy AS
SELECT c.grader, c.system, c.level, c.concept,
       count(*)                                    AS n_models,
       avg(c.accuracy ORDER BY m.model)            AS mean_accuracy
FROM conceptmath_concept_accuracy c
JOIN conceptmath_mean_concept_runs m
  ON m.run_id = c.run_id AND m.grader = c.grader AND m.system = c.system
GROUP BY c.grader, c.system, c.level, c.concept;

COMMENT ON VIEW conceptmath_mean_concept_runs IS 'The run chosen per (grader, model, system) for the mean concept accuracy: zero-shot runs only, the one with the most graded problems, then the latest started, then by run id.';
COMMENT ON COLUMN conceptmath_mean_concept_runs.n IS 'Graded problems of the system in the chosen run.';
COMMENT ON VIEW conceptmath_mean_concept_accuracy IS 'Paper Fig. 5: each concept''s accuracy averaged over models, one zero-shot run per model and system (conceptmath_mean_concept_runs).';
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.n_models IS 'Models averaged (one zero-shot run each).';
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.mean_accuracy IS 'Unweighted mean over the models of the concept''s accuracy, a fraction in [0, 1].';

-- The fewest graded problems a concept needs to be called unmastered: below it an accuracy is
-- noise (1 of 2 right is 50% [9, 91]), and on a --limit sample the "lowest" concepts are ties
-- of concepts with 1 or 2 problems. 5 keeps every concept of the full data eligible (the
-- smallest has 6 problems) while a 5-problem accuracy is at least known to within about +-40
-- points.
CREATE OR REPLACE MACRO conceptmath_unmastered_min_n() AS 5;

-- The concepts of each run with at least `min_n` graded problems, ranked within the run's
-- system and level: rank 1 = lowest accuracy; ties go to the concept with more problems, then
-- by name.
CREATE OR REPLACE MACRO conceptmath_lowest(min_n) AS TABLE
SELECT run_id, grader, system, level, concept, n, accuracy,
       row_number() OVER (PARTITION BY run_id, grader, system, level
                          ORDER BY accuracy, n DESC, concept) AS rank
FROM conceptmath_concept_accuracy
WHERE n >= min_n;

-- The lowest concepts of a run ("unmastered", paper Sec. 4): conceptmath_lowest among the
-- concepts with at least conceptmath_unmastered_min_n() graded problems.
CREATE OR REPLACE VIEW conceptmath_unmastered AS
FROM conceptmath_lowest(conceptmath_unmastered_min_n());

-- Problems on which the two rule graders disagree, with the response they graded.
-- (Other graders' verdicts are read and left NULL by the FILTERs rather than filtered out by
-- grader, and the response is found by its id alone: a condition on the scans themselves would
-- have them read through other runs' rows before a question about one run finds it has none.)
CREATE OR REPLACE VIEW conceptmath_grader_disagreement AS
WITH both_graders AS (   -- per graded problem, the two verdicts on the response that counts
    SELECT run_id, item_id, any_value(response_id)             AS response_id,
           bool_or(correct) FILTER (grader = 'official')       AS official,
           bool_or(correct) FILTER (grader = 'strict')         AS strict
    FROM item_verdicts
    WHERE benchmark = 'conceptmath'
    GROUP BY run_id, item_id
)
SELECT b.run_id, b.item_id, i.group_id AS system, b.official, b.strict, c.response
FROM both_graders b
JOIN items i ON i.benchmark = 'conceptmath' AND i.item_id = b.item_id
JOIN responses c ON c.item_id = b.item_id AND c.response_id = b.response_id
WHERE b.official <> b.strict;

-- Paper Table 2, one model's row: for the run `rid`, the runs of the same model on ConceptMath,
-- one per prompt setting (the run itself for its own setting; otherwise the latest started),
-- and their accuracy on each system under `grader_name`.
-- First the runs of the row (from `runs` alone: cheap), then their accuracies. (A report asks
-- conceptmath_accuracy for each of these runs by its id: a join on run_id computes every run's
-- accuracy before choosing, slow on a store of many runs.)
CREATE OR REPLACE MACRO conceptmath_table2_runs(rid) AS TABLE
WITH me AS (
    SELECT model, setting FROM runs WHERE run_id = rid
)
SELECT r.setting, r.run_id
FROM runs r, me
WHERE r.benchmark = 'conceptmath' AND r.model = me.model
QUALIFY row_number() OVER (PARTITION BY r.setting
                           ORDER BY (r.run_id = rid) DESC, r.started_at DESC, r.run_id) = 1;

CREATE OR REPLACE MACRO conceptmath_table2(rid, grader_name) AS TABLE
SELECT ch.setting, ch.run_id, a.system, a.n, a.correct, a.accuracy
FROM conceptmath_table2_runs(rid) ch
JOIN conceptmath_accuracy a ON a.run_id = ch.run_id AND a.grader = grader_name;
