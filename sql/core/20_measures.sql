-- Measures the benchmarks' views share, written once: over a group of verdicts (`correct` is a
-- BOOLEAN column), how many are right and which share is. Aggregate macros: use them in a
-- SELECT with GROUP BY like count(*).
CREATE OR REPLACE MACRO n_correct(correct) AS count(*) FILTER (correct);
CREATE OR REPLACE MACRO accuracy_of(correct) AS count(*) FILTER (correct) / count(*);
