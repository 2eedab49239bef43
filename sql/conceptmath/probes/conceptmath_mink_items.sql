-- MIN-K% (Shi et al. 2023) per question: the mean of the K% = 10% lowest token
-- log-probabilities of the question (at least one token). Higher: more likely seen in training.
-- `min_k` is Shi et al.'s MIN-K% PROB as they define it, a mean log-probability (<= 0);
-- `min_k_prob` = exp(min_k), the same on the probability scale (0, 1]: the geometric mean of
-- those tokens' probabilities, monotone in min_k (same order), higher still more likely seen.
CREATE OR REPLACE MACRO conceptmath_mink_items_of(runs) AS TABLE
WITH per_item AS (       -- each scored question's token log-probabilities, lowest first
    SELECT c.run_id, c.item_id, list_sort(list(t.logprob)) AS lowest_first
    FROM current_responses_of(runs) c
    JOIN token_logprobs t ON t.response_id = c.response_id AND t.kind = 'prompt'
    WHERE c.status = 'ok'
    GROUP BY c.run_id, c.item_id
), with_k AS (
    SELECT run_id, item_id, lowest_first,
           len(lowest_first)                                      AS n_tokens,
           greatest(1, floor(0.1 * len(lowest_first)))::INTEGER  AS k
    FROM per_item
)
SELECT run_id, item_id, n_tokens, k,
       list_avg(lowest_first[1:k])          AS min_k,
       exp(list_avg(lowest_first[1:k]))     AS min_k_prob
FROM with_k;
-- Stored per probe run (mathprobe/store/stored_sql.py): the sorting of every question's token
-- log-probabilities is done once per run, not per query.
-- @stored conceptmath_mink_items

COMMENT ON VIEW conceptmath_mink_items IS $$MIN-K% (Shi et al. 2023, K = 10%, at least one token) of each scored question.$$;
COMMENT ON COLUMN conceptmath_mink_items.min_k IS $$Mean log-probability of the K% least likely tokens of the question (Shi et al.'s MIN-K% PROB); higher: more likely seen.$$;
COMMENT ON COLUMN conceptmath_mink_items.min_k_prob IS $$exp(min_k): the geometric mean probability of those tokens, in (0, 1]; the same order as min_k.$$;
COMMENT ON COLUMN conceptmath_mink_items.item_id IS $$The question scored.$$;
COMMENT ON COLUMN conceptmath_mink_items.n_tokens IS $$Tokens of the question with a log-probability.$$;
COMMENT ON COLUMN conceptmath_mink_items.k IS $$Tokens averaged: 10% of them, at least one.$$;
