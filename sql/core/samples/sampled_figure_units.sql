-- The sampled figures (docs/sampling.md) for comparisons: what each item adds to them, for the
-- runs that ask each item more than once (--samples K). The item is the unit a bootstrap
-- resamples, so an item's K samples always travel together (they are not independent
-- answers). Cells:
--   sampled:mean     right samples / valid samples: the mean accuracy over samples;
--   sample:<s>       the accuracy of sample s alone (s = 0 .. K-1; their spread is a figure);
--   pass@<k>         the item's pass@k, the unbiased estimator (pass_at_k), for k = 1 .. its
--                    valid samples (an item with fewer than k valid samples is left out);
--   maj@<k>          whether the majority answer of its first k valid samples is right
--                    (sample_majorities), and maj_tie@<k> (k >= 2) whether that vote was tied;
--   sampled:disagree whether its valid samples (two or more) gave different answers.
-- A failed or cut sample (infra_failed, truncated) has no verdict: it is left out as a failed
-- call is, and its item counts with the samples it has.
-- (Each layer read once, its rows' cells unnested; no CTE, which in a table macro would read
-- every run's responses for a question about one.)
CREATE OR REPLACE MACRO sampled_figure_units_of(runs) AS TABLE
SELECT run_id, grader, item_id AS unit, item_id AS item, 'sample:' || sample AS cell,
       correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM sample_verdicts_of(runs)
UNION ALL
SELECT run_id, grader, item_id, item_id, cell, num, den
FROM (SELECT run_id, grader, item_id,
             unnest([{'cell': 'sampled:mean', 'num': c::DOUBLE, 'den': n::DOUBLE}]
                    || CASE WHEN n >= 2 THEN [{'cell': 'sampled:disagree',
                                              'num': (n_answers > 1)::DOUBLE,
                                              'den': 1.0::DOUBLE}] ELSE [] END
                    || list_transform(range(1, n + 1), lambda k: {
                           'cell': 'pass@' || k, 'num': pass_at_k(n, c, k)::DOUBLE,
                           'den': 1.0::DOUBLE}),
                    recursive := true)
      FROM sample_items_of(runs))
UNION ALL
SELECT run_id, grader, item_id, item_id, cell, num, den
FROM (SELECT run_id, grader, item_id,
             unnest([{'cell': 'maj@' || k, 'num': correct::DOUBLE, 'den': 1.0::DOUBLE}]
                    || CASE WHEN k >= 2 THEN [{'cell': 'maj_tie@' || k, 'num': tie::DOUBLE,
                                              'den': 1.0::DOUBLE}] ELSE [] END,
                    recursive := true)
      FROM sample_majorities_of(runs));

CREATE OR REPLACE VIEW sampled_figure_units AS
FROM sampled_figure_units_of('run_data');

COMMENT ON VIEW sampled_figure_units IS $$The sampled figures' units (runs asked --samples K > 1): what each item adds to the mean accuracy over samples, each sample's accuracy, pass@k, maj@k and its ties, and the share of items whose samples disagree; the item is the resampled unit.$$;
COMMENT ON COLUMN sampled_figure_units.unit IS $$The resampled unit: the item (its samples travel together).$$;
COMMENT ON COLUMN sampled_figure_units.item IS $$The paired unit of a McNemar test: the item.$$;
COMMENT ON COLUMN sampled_figure_units.cell IS $$The figure's cell: sampled:mean, sample:<s>, pass@<k>, maj@<k>, maj_tie@<k>, sampled:disagree.$$;
