-- pass@k of one item from n valid samples of which c are right: the unbiased estimator of
-- Chen et al. 2021 (Evaluating Large Language Models Trained on Code, eq. 1),
-- 1 - C(n - c, k) / C(n, k), in their numerically stable form
-- 1 - prod_{i = n - c + 1 .. n} (1 - k / i): the chance that k of the n samples drawn without
-- replacement hold at least one right answer. NULL where n < k (the item has fewer samples than
-- k: it is left out of pass@k, docs/sampling.md).
CREATE OR REPLACE MACRO pass_at_k(n, c, k) AS (
    CASE WHEN n < k THEN NULL
         WHEN n - c < k THEN 1.0
         ELSE 1.0 - coalesce(list_product(list_transform(range(n - c + 1, n + 1),
                                                         lambda i: 1.0 - k / i)), 1.0)
    END
);

COMMENT ON MACRO pass_at_k IS $$pass@k of one item with c right of n valid samples: 1 - C(n - c, k) / C(n, k) (Chen et al. 2021, the unbiased estimator); NULL where n < k.$$;
