-- The distribution of the error types of a run's wrong answers (CMMaTH Fig. 6; the same for every
-- benchmark with a taxonomy): per run, grader and labeller, over the answers the grader calls
-- wrong that the labeller labelled, how many have each type (every type of the taxonomy, none
-- included), out of how many labelled and how many wrong. Its interval (Wilson) is the report's.
CREATE OR REPLACE VIEW error_types_distribution AS
WITH wrong AS (
    SELECT run_id, benchmark, grader, item_id, response_id
    FROM item_verdicts
    WHERE NOT correct
), labelled AS (
    SELECT w.run_id, w.benchmark, w.grader, l.labeler, l.error_type, l.source
    FROM wrong w
    JOIN error_labels_current l
      ON l.run_id = w.run_id AND l.item_id = w.item_id AND l.response_id = w.response_id
), totals AS (
    SELECT run_id, benchmark, grader, labeler, count(*) AS n_labelled
    FROM labelled
    GROUP BY ALL
), n_wrong AS (
    SELECT run_id, grader, count(*) AS n_wrong
    FROM wrong
    GROUP BY ALL
)
SELECT t.run_id, t.benchmark, t.grader, t.labeler, ty.error_type, ty.position,
       count(l.error_type)                              AS n,
       count(l.error_type) FILTER (l.source = 'rules')  AS n_by_rule,
       t.n_labelled, w.n_wrong,
       count(l.error_type) / any_value(t.n_labelled)    AS share
FROM totals t
JOIN error_types ty ON ty.benchmark = t.benchmark
JOIN n_wrong w ON w.run_id = t.run_id AND w.grader = t.grader
LEFT JOIN labelled l
  ON l.run_id = t.run_id AND l.grader = t.grader AND l.labeler = t.labeler
 AND l.error_type = ty.error_type
GROUP BY ALL;

COMMENT ON VIEW error_types_distribution IS 'The distribution of error types of a run''s wrong answers (CMMaTH Fig. 6, for every benchmark with a taxonomy): per run, grader and labeller, over the answers the grader calls wrong that the labeller labelled, the count and share of each type of the taxonomy (none included). Only the first error of an answer counts.';
COMMENT ON COLUMN error_types_distribution.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN error_types_distribution.benchmark IS 'The run''s benchmark.';
COMMENT ON COLUMN error_types_distribution.grader IS 'The grader whose wrong answers are counted.';
COMMENT ON COLUMN error_types_distribution.labeler IS 'The labeller whose types they are.';
COMMENT ON COLUMN error_types_distribution.error_type IS 'The error type (error_types).';
COMMENT ON COLUMN error_types_distribution.position IS 'Its place in the paper''s order.';
COMMENT ON COLUMN error_types_distribution.n IS 'Wrong answers the labeller gave this type.';
COMMENT ON COLUMN error_types_distribution.n_by_rule IS 'Of those, how many by rule (a refusal or empty answer), without a labeller.';
COMMENT ON COLUMN error_types_distribution.n_labelled IS 'Wrong answers the labeller labelled: what the share is over.';
COMMENT ON COLUMN error_types_distribution.n_wrong IS 'Wrong answers of the run under the grader (labelled or not: a sample, label_failed replies and failed calls are the difference).';
COMMENT ON COLUMN error_types_distribution.share IS 'n / n_labelled, a fraction in [0, 1].';
