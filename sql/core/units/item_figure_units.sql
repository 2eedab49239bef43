-- Layer 4 (comparison): what each item contributes to a figure, so a figure is sum(num) / sum(den)
-- over units a bootstrap can resample. Benchmarks that define their own figures write a view like
-- this one (e.g. wemath_figure_units, which resamples whole problems); this is the default for a
-- benchmark that defines none: its accuracy over all items, one cell 'all'.
CREATE OR REPLACE VIEW item_figure_units AS
SELECT run_id, grader, item_id AS unit, item_id AS item, 'all' AS cell,
       correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM item_verdicts;

COMMENT ON VIEW item_figure_units IS $$Layer 4, the default for benchmarks that define no figures of their own: each graded item's contribution to its run's accuracy (cell all), for bootstrap intervals.$$;
COMMENT ON COLUMN item_figure_units.grader IS $$The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe's score).$$;
COMMENT ON COLUMN item_figure_units.unit IS $$The resampled unit: the item.$$;
COMMENT ON COLUMN item_figure_units.item IS $$The paired unit of a McNemar test: the item.$$;
COMMENT ON COLUMN item_figure_units.cell IS $$The figure's cell: all (accuracy over all items).$$;
