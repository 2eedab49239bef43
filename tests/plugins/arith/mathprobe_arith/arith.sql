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
-- answered problem and cell, the problem its own unit; cells 'all' and 'topic:<topic>'.
CREATE OR REPLACE VIEW arith_figure_units AS
SELECT v.run_id, v.grader, v.item_id AS unit, v.item_id AS item, c.cell,
       v.correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM item_verdicts v
JOIN items i ON i.benchmark = v.benchmark AND i.item_id = v.item_id
CROSS JOIN LATERAL (VALUES ('all'), ('topic:' || (i.payload->>'topic'))) c(cell)
WHERE v.benchmark = 'arith';

COMMENT ON VIEW arith_figure_units IS
    'Arith plug-in: one row per answered problem and figure cell (all, topic:<topic>): num = right, den = 1';
