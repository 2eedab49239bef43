-- The Arith plug-in's one SQL file: accuracy per topic, on top of mathprobe's core view layer
-- (item_verdicts: one verdict per answered item and grader; failed calls have none; the
-- measures n_correct and accuracy_of).
CREATE OR REPLACE VIEW arith_topic_accuracy AS
SELECT v.run_id, v.grader,
       i.payload->>'topic'                    AS topic,
       count(*)                               AS n,
       n_correct(v.correct)                   AS correct,
       accuracy_of(v.correct)                 AS accuracy
FROM item_verdicts v
JOIN items i ON i.benchmark = v.benchmark AND i.item_id = v.item_id
WHERE v.benchmark = 'arith'
GROUP BY v.run_id, v.grader, i.payload->>'topic';

COMMENT ON VIEW arith_topic_accuracy IS
    'Arith plug-in: accuracy of a run per topic (addition, subtraction, ...), as a fraction';

-- The rows every figure of FIGURES is computed from (mathprobe's figure-units contract): one per
-- answered problem and cell, the problem its own unit; cells 'all' and 'topic:<topic>'. A table
-- macro over a set of runs (`runs`: run_data, or live_run_spans), stored per run by the store
-- (the line after it: mathprobe writes out the table arith_figure_units_stored, the view
-- arith_figure_units and the table's comments).
CREATE OR REPLACE MACRO arith_figure_units_of(runs) AS TABLE
SELECT v.run_id, v.grader, v.item_id AS unit, v.item_id AS item, c.cell,
       v.correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM item_verdicts_of(runs) v
JOIN items i ON i.benchmark = v.benchmark AND i.item_id = v.item_id
CROSS JOIN LATERAL (VALUES ('all'), ('topic:' || (i.payload->>'topic'))) c(cell)
WHERE v.benchmark = 'arith';
-- @stored arith_figure_units

COMMENT ON VIEW arith_figure_units IS
    'Arith plug-in: one row per answered problem and figure cell (all, topic:<topic>): num = right, den = 1';
COMMENT ON COLUMN arith_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN arith_figure_units.grader IS 'The grader of the verdict (last_number).';
COMMENT ON COLUMN arith_figure_units.unit IS 'The resampled unit: the problem.';
COMMENT ON COLUMN arith_figure_units.item IS 'The paired unit of a McNemar test: the problem.';
COMMENT ON COLUMN arith_figure_units.cell IS 'The figure''s cell: all, or topic:<topic>.';
COMMENT ON COLUMN arith_figure_units.num IS '1 for a right answer, else 0.';
COMMENT ON COLUMN arith_figure_units.den IS '1 per answered problem; a figure is sum(num) / sum(den).';
