-- Per run asked --samples K, grader and item: how many of its samples have a verdict (n: the
-- valid ones; failed and cut samples have none), how many of those are right (c) and how many
-- different answers they gave: what pass@k (pass_at_k), the mean accuracy over samples and the
-- share of items whose samples disagree are computed from.
CREATE OR REPLACE MACRO sample_items_of(runs) AS TABLE
SELECT run_id, grader, item_id, count(*) AS n, count(*) FILTER (correct) AS c,
       -- "no answer found" (a NULL extraction) counts as an answer of its own
       count(DISTINCT extracted) + (count(*) FILTER (extracted IS NULL) > 0)::INTEGER
         AS n_answers
FROM sample_verdicts_of(runs)
GROUP BY run_id, grader, item_id;

CREATE OR REPLACE VIEW sample_items AS
FROM sample_items_of('run_data');

COMMENT ON VIEW sample_items IS $$Per run asked --samples K, grader and item: its valid samples (n, those with a verdict), the right ones among them (c) and how many different answers they gave (n_answers).$$;
COMMENT ON COLUMN sample_items.item_id IS $$The item.$$;
COMMENT ON COLUMN sample_items.n IS $$Samples with a verdict (failed and cut samples have none).$$;
COMMENT ON COLUMN sample_items.c IS $$Of those, the right ones.$$;
COMMENT ON COLUMN sample_items.n_answers IS $$How many different answers its valid samples gave (the extracted answers; none found counts as one).$$;
