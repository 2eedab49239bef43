-- A measure the benchmarks' views share, written once: over a group of verdicts (`correct` is a
-- BOOLEAN column), the share that is right. An aggregate macro: use it in a SELECT with GROUP
-- BY like count(*).
CREATE OR REPLACE MACRO accuracy_of(correct) AS count(*) FILTER (correct) / count(*);
