-- A measure the benchmarks' views share, written once: over a group of verdicts (`correct` is a
-- BOOLEAN column), how many are right. An aggregate macro: use it in a SELECT with GROUP BY
-- like count(*).
CREATE OR REPLACE MACRO n_correct(correct) AS count(*) FILTER (correct);
