-- The distribution of the error types of a run's wrong answers (CMMaTH Fig. 6; the same for every
-- benchmark with a taxonomy): per run, grader and labeller, over the answers the grader calls
-- wrong that the labeller labelled, how many have each type (every type of the taxonomy, none
-- included), out of how many labelled and how many wrong. Its interval (Wilson) is the report's.
CREATE OR REPLACE VIEW error_types_distribution AS
WITH wrong AS (
    SELECT run_id, benchmark, grader, item_id, response_id
    FROM item_verdicts
    WHERE NOT correct
), per_answer AS (      -- each wrong answer once per labeller of its run, with its label if any
    SELECT w.run_id, w.benchmark, w.grader, b.labeler, l.error_type, l.source
    FROM wrong w
    JOIN (SELECT DISTINCT run_id, labeler FROM error_labels) b ON b.run_id = w.run_id
    LEFT JOIN error_labels l            -- a label on the answer that counts (the verdict's)
      ON l.run_id = w.run_id AND l.item_id = w.item_id AND l.labeler = b.labeler
     AND l.response_id = w.response_id
), per_labeller AS (    -- one pass, grouped by run: a question about one run reads its rows
    SELECT run_id, benchmark, grader, labeler,
           count(*)                                              AS n_wrong,
           count(error_type)                                     AS n_labelled,
           histogram(error_type) FILTER (error_type IS NOT NULL) AS by_type,
           histogram(error_type) FILTER (source = 'rules')       AS by_rule
    FROM per_answer
    GROUP BY ALL
    HAVING count(error_type) > 0
)
SELECT p.run_id, p.benchmark, p.grader, p.labeler, ty.error_type, ty.position,
       coalesce(p.by_type[ty.error_type], 0)                     AS n,
       coalesce(p.by_rule[ty.error_type], 0)                     AS n_by_rule,
       p.n_labelled, p.n_wrong,
       coalesce(p.by_type[ty.error_type], 0) / p.n_labelled      AS share
FROM per_labeller p
JOIN error_types ty ON ty.benchmark = p.benchmark;

COMMENT ON VIEW error_types_distribution IS $$The distribution of error types of a run's wrong answers (CMMaTH Fig. 6, for every benchmark with a taxonomy): per run, grader and labeller, over the answers the grader calls wrong that the labeller labelled, the count and share of each type of the taxonomy (none included). Only the first error of an answer counts.$$;
COMMENT ON COLUMN error_types_distribution.grader IS $$The grader whose wrong answers are counted.$$;
COMMENT ON COLUMN error_types_distribution.labeler IS $$The labeller whose types they are.$$;
COMMENT ON COLUMN error_types_distribution.error_type IS $$The error type (error_types).$$;
COMMENT ON COLUMN error_types_distribution.position IS $$Its place in the paper's order.$$;
COMMENT ON COLUMN error_types_distribution.n IS $$Wrong answers the labeller gave this type.$$;
COMMENT ON COLUMN error_types_distribution.n_by_rule IS $$Of those, how many by rule (a refusal or empty answer), without a labeller.$$;
COMMENT ON COLUMN error_types_distribution.n_labelled IS $$Wrong answers the labeller labelled: what the share is over.$$;
COMMENT ON COLUMN error_types_distribution.n_wrong IS $$Wrong answers of the run under the grader (labelled or not: a sample, label_failed replies and failed calls are the difference).$$;
COMMENT ON COLUMN error_types_distribution.share IS $$n / n_labelled, a fraction in [0, 1].$$;