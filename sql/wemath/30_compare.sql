-- WE-MATH for comparisons (mathprobe compare, the HTML report): layer 4, on top of the figures.
--
-- wemath_figure_units: what each composite problem contributes to each figure, so that every
-- figure of Tables 1 and 2 is sum(num) / sum(den) over the run's problems (the 12 categories: the
-- mean of their leaves' figures). A bootstrap then resamples whole problems, never single
-- questions: a problem's questions always travel together. Summed over the problems of a run
-- these rows give exactly wemath_four_dimensional, wemath_step_accuracy and
-- wemath_concept_accuracy (tests/reports check it).
--   unit  the resampled unit: the problem id;
--   item  the paired unit of a McNemar test: the question (item id) for question figures, the
--         problem for problem figures;
--   cell  the figure's cell: ik, ig, cm.strict, cm.loose, rm.strict, rm.loose (RM / N),
--         rm_rate.strict, rm_rate.loose (RM / (RM + CM)), score.strict, score.loose
--         (alpha 0, beta 0.5: IG counts half, CM whole), s1, s2, s3, concept:<leaf>.
-- For a set of runs (sql/core/10_current.sql: `runs` names run_data or live_run_spans; a run
-- whose span is empty there is stored, not live).
CREATE OR REPLACE MACRO wemath_figure_units_of(runs) AS TABLE
WITH problems AS (
    SELECT run_id, grader, problem_id,
           (NOT all_subs AND NOT multi)::DOUBLE        AS ik,
           (all_subs AND NOT multi)::DOUBLE            AS ig,
           (all_subs AND multi)::DOUBLE                AS cm_strict,
           (any_subs AND multi)::DOUBLE                AS cm_loose,
           (NOT all_subs AND multi)::DOUBLE            AS rm_strict,
           (NOT any_subs AND multi)::DOUBLE            AS rm_loose,
           multi::DOUBLE                               AS multi
    FROM wemath_problem_verdicts_of(runs)
    WHERE complete
), problem_cells AS (
    SELECT run_id, grader, problem_id AS unit, problem_id AS item,
           unnest([{'cell': 'ik',             'num': ik,                   'den': 1.0::DOUBLE},
                   {'cell': 'ig',             'num': ig,                   'den': 1.0::DOUBLE},
                   {'cell': 'cm.strict',      'num': cm_strict,            'den': 1.0::DOUBLE},
                   {'cell': 'cm.loose',       'num': cm_loose,             'den': 1.0::DOUBLE},
                   {'cell': 'rm.strict',      'num': rm_strict,            'den': 1.0::DOUBLE},
                   {'cell': 'rm.loose',       'num': rm_loose,             'den': 1.0::DOUBLE},
                   -- RM + CM = the problems whose composite question is right, under both rules
                   {'cell': 'rm_rate.strict', 'num': rm_strict,            'den': multi},
                   {'cell': 'rm_rate.loose',  'num': rm_loose,             'den': multi},
                   {'cell': 'score.strict',   'num': 0.5 * ig + cm_strict, 'den': 1.0::DOUBLE},
                   {'cell': 'score.loose',    'num': 0.5 * ig + cm_loose,  'den': 1.0::DOUBLE}],
                  recursive := true)
    FROM problems
), question_cells AS (
    SELECT run_id, grader, problem_id AS unit, item_id AS item,
           CASE WHEN NOT is_composite THEN 's1' ELSE 's' || steps END AS cell,
           correct::DOUBLE AS num, 1.0::DOUBLE AS den
    FROM wemath_item_verdicts_of(runs)
    UNION ALL
    SELECT run_id, grader, problem_id, item_id, 'concept:' || concept, correct::DOUBLE, 1.0
    FROM wemath_item_verdicts_of(runs)
    WHERE NOT is_composite
)
SELECT run_id, grader, unit, item, cell, num, den FROM problem_cells
UNION ALL
SELECT run_id, grader, unit, item, cell, num, den FROM question_cells;

-- Stored per run (a run's 8,000 rows read, not rebuilt from its verdicts, by compare and the
-- HTML report), as the other benchmarks' units are.
-- @stored wemath_figure_units

-- The four dimensions of each problem (paper Sec. 3.2) under each rule: the per-problem layer
-- of wemath_four_dimensional, for following a problem from one run to another.
CREATE OR REPLACE VIEW wemath_problem_dimensions AS
SELECT run_id, grader, problem_id, r.rule,
       CASE WHEN NOT all_subs AND NOT multi THEN 'IK'
            WHEN all_subs AND NOT multi THEN 'IG'
            WHEN r.rule = 'strict' AND all_subs THEN 'CM'
            WHEN r.rule = 'loose' AND any_subs THEN 'CM'
            ELSE 'RM' END AS dimension
FROM wemath_problem_verdicts
CROSS JOIN (VALUES ('strict'), ('loose')) r(rule)
WHERE complete;

-- KCA vs plain (paper Fig. 10): for two runs, how many problems moved from each dimension in
-- run_a to each dimension in run_b, over the problems complete in both (the 16 cells sum to
-- that N). All 16 cells are listed, zeros included.
CREATE OR REPLACE MACRO wemath_transitions(run_a, run_b, grader_name := 'official') AS TABLE
WITH dims(dimension, k) AS (VALUES ('IK', 1), ('IG', 2), ('CM', 3), ('RM', 4)),
moves AS (
    SELECT a.rule, a.dimension AS from_dim, b.dimension AS to_dim, count(*) AS n
    FROM wemath_problem_dimensions a
    JOIN wemath_problem_dimensions b USING (problem_id, rule, grader)
    WHERE a.run_id = run_a AND b.run_id = run_b AND a.grader = grader_name
    GROUP BY ALL
)
SELECT r.rule, f.dimension AS from_dim, t.dimension AS to_dim, coalesce(m.n, 0) AS n
FROM (VALUES ('strict'), ('loose')) r(rule)
CROSS JOIN dims f CROSS JOIN dims t
LEFT JOIN moves m ON m.rule = r.rule AND m.from_dim = f.dimension AND m.to_dim = t.dimension
ORDER BY r.rule DESC, f.k, t.k;

-- The pairs of Fig. 10 in a store: per model, its latest plain run and its latest KCA run.
CREATE OR REPLACE VIEW wemath_kca_pairs AS
WITH latest AS (
    SELECT model, setting, run_id
    FROM runs
    WHERE benchmark = 'wemath' AND setting IN ('plain', 'kca')
    QUALIFY row_number() OVER (PARTITION BY model, setting ORDER BY started_at DESC, run_id) = 1
)
SELECT p.model, p.run_id AS plain_run, k.run_id AS kca_run
FROM latest p JOIN latest k ON k.model = p.model AND k.setting = 'kca'
WHERE p.setting = 'plain';

-- Fig. 10 for every pair of wemath_kca_pairs: plain dimension -> KCA dimension, per grader and
-- rule (only the moves that happened; wemath_transitions lists all 16 cells of one pair).
CREATE OR REPLACE VIEW wemath_kca_transitions AS
SELECT k.model, k.plain_run, k.kca_run, a.grader, a.rule,
       a.dimension AS from_dim, b.dimension AS to_dim, count(*) AS n
FROM wemath_kca_pairs k
JOIN wemath_problem_dimensions a ON a.run_id = k.plain_run
JOIN wemath_problem_dimensions b ON b.run_id = k.kca_run AND b.problem_id = a.problem_id
                                 AND b.rule = a.rule AND b.grader = a.grader
GROUP BY ALL;
