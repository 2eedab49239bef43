-- Layer 4 (comparison): what each item contributes to a figure, so a figure is sum(num) / sum(den)
-- over units a bootstrap can resample. Benchmarks that define their own figures write a view like
-- this one (e.g. wemath_figure_units, which resamples whole problems); this is the default for a
-- benchmark that defines none: its accuracy over all items, one cell 'all'.
CREATE OR REPLACE VIEW item_figure_units AS
SELECT run_id, grader, item_id AS unit, item_id AS item, 'all' AS cell,
       correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM item_verdicts;
