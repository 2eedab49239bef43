-- The chance level of each item (Benchmark.chance_level): the probability that a uniform
-- guess, written in the benchmark's answer format (baseline:random), is graded right.
CREATE TABLE IF NOT EXISTS item_chance (
    benchmark    VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    chance       DOUBLE
);

COMMENT ON TABLE item_chance IS $$The chance level of each item: the probability that a uniform guess in the benchmark's answer format (what baseline:random answers) is graded right by its first grader; the mean over a figure's items is that figure's chance level.$$;
COMMENT ON COLUMN item_chance.benchmark IS $$The benchmark the item belongs to.$$;
COMMENT ON COLUMN item_chance.item_id IS $$The item (items.item_id).$$;
COMMENT ON COLUMN item_chance.chance IS $$The probability, in [0, 1] (e.g. 1/k for a question with k options and one right answer).$$;
