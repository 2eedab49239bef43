-- WE-MATH for comparisons (mathprobe compare, the HTML report): layer 4.
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
-- The problems' cells come from their dimensions (wemath_problem_dimensions), the questions'
-- from the questions of complete problems (wemath_item_verdicts). For a set of runs
-- (sql/core/current/responses_of.sql: `runs` names run_data or live_run_spans; a run whose span
-- is empty there is stored, not live).
CREATE OR REPLACE MACRO wemath_figure_units_of(runs) AS TABLE
WITH problem_cells AS (   -- each problem's cells under each rule (wemath_problem_cells)
    SELECT run_id, grader, problem_id AS unit, problem_id AS item,
           unnest(wemath_problem_cells(dimension, rule), recursive := true)
    FROM wemath_problem_dimensions_of(runs)
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

COMMENT ON VIEW wemath_figure_units IS $$Layer 4 (compare, HTML report): what each complete problem contributes to each figure of Tables 1 and 2, so a bootstrap resamples whole problems; summed over a run they give the figure views exactly.$$;
COMMENT ON COLUMN wemath_figure_units.grader IS $$The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe's score).$$;
COMMENT ON COLUMN wemath_figure_units.unit IS $$The resampled unit: the problem (ID).$$;
COMMENT ON COLUMN wemath_figure_units.item IS $$The paired unit of a McNemar test: the question for question figures, the problem for problem figures.$$;
COMMENT ON COLUMN wemath_figure_units.cell IS $$The figure's cell: ik, ig, cm.strict, cm.loose, rm.strict, rm.loose (RM / N), rm_rate.strict, rm_rate.loose (RM / (RM + CM)), score.strict, score.loose, s1, s2, s3, concept:<leaf>.$$;
