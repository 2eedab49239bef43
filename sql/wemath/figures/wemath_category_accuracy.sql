-- Paper Table 1, the 12 second-level categories: the unweighted mean of the category's leaf
-- accuracies (leaves without questions in the run do not take part).
CREATE OR REPLACE VIEW wemath_category_accuracy AS
SELECT ca.run_id, ca.grader,
       k.root2                        AS category,
       avg(ca.accuracy ORDER BY ca.concept) AS accuracy,   -- ordered: same bits every time
       count(*)                       AS n_concepts,
       sum(ca.n)                      AS n
FROM wemath_concept_accuracy ca
JOIN wemath_knowledge k ON k.leaf = ca.concept
GROUP BY ca.run_id, ca.grader, k.root2;

COMMENT ON VIEW wemath_category_accuracy IS $$Paper Table 1, the 12 categories: the unweighted mean of the category's leaf accuracies (leaves without questions left out).$$;
COMMENT ON COLUMN wemath_category_accuracy.category IS $$The second-level category (root2); Table 1 abbreviates it (UCU, AL, CPF, ...).$$;
COMMENT ON COLUMN wemath_category_accuracy.accuracy IS $$Mean of its leaves' accuracies, a fraction.$$;
COMMENT ON COLUMN wemath_category_accuracy.n_concepts IS $$Leaves with questions in the run.$$;
COMMENT ON COLUMN wemath_category_accuracy.n IS $$One-step questions of those leaves.$$;
