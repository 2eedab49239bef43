-- WE-MATH Figure 11 (Appendix E.2): the error types of a run's wrong answers counted across the 67
-- knowledge concepts. Only the first error of an answer counts (its label). A one-step question
-- counts under its concept; a multi-step (composite) question under each concept of its problem,
-- the concepts of its one-step sub-problems ("errors in multi-step problems are matched to the
-- one-step sub-problems of the same concepts"), kept apart in n_multi_step. Every concept and
-- type of a labelled run is a row (none included), grouped by the concept's category (root2).
CREATE OR REPLACE VIEW wemath_error_concepts AS
WITH labelled AS (
    SELECT v.run_id, v.grader, l.labeler, l.error_type,
           l.part LIKE '%multi'                                 AS multi_step,
           trim(unnest(string_split(l.concept, ';')))           AS concept
    FROM item_verdicts v
    JOIN error_labels_current l
      ON l.run_id = v.run_id AND l.item_id = v.item_id AND l.response_id = v.response_id
    WHERE v.benchmark = 'wemath' AND NOT v.correct
), runs_labelled AS (
    SELECT DISTINCT run_id, grader, labeler FROM labelled
)
SELECT r.run_id, r.grader, r.labeler, k.root2 AS category, k.leaf AS concept,
       t.error_type, t.position,
       count(l.error_type) FILTER (NOT l.multi_step)   AS n_one_step,
       count(l.error_type) FILTER (l.multi_step)       AS n_multi_step,
       count(l.error_type)                             AS n
FROM runs_labelled r
CROSS JOIN wemath_knowledge k
JOIN error_types t ON t.benchmark = 'wemath'
LEFT JOIN labelled l
  ON l.run_id = r.run_id AND l.grader = r.grader AND l.labeler = r.labeler
 AND l.concept = k.leaf AND l.error_type = t.error_type
GROUP BY ALL;

COMMENT ON VIEW wemath_error_concepts IS $$WE-MATH Fig. 11: per run, grader and labeller, each error type counted across the 67 knowledge concepts (first error of each wrong answer only); a one-step question under its concept, a composite question under each concept of its problem (its one-step sub-problems' concepts), apart in n_multi_step. Every concept and type, none included.$$;
COMMENT ON COLUMN wemath_error_concepts.grader IS $$The grader whose wrong answers are counted.$$;
COMMENT ON COLUMN wemath_error_concepts.labeler IS $$The labeller whose types they are.$$;
COMMENT ON COLUMN wemath_error_concepts.category IS $$The concept's second-level category (root2, Table 1's 12).$$;
COMMENT ON COLUMN wemath_error_concepts.concept IS $$The knowledge concept (one of the 67 leaves).$$;
COMMENT ON COLUMN wemath_error_concepts.error_type IS $$The error type (Table 9).$$;
COMMENT ON COLUMN wemath_error_concepts.position IS $$The type's place in Table 9.$$;
COMMENT ON COLUMN wemath_error_concepts.n_one_step IS $$Wrong one-step questions of this concept with this type.$$;
COMMENT ON COLUMN wemath_error_concepts.n_multi_step IS $$Wrong composite questions whose problem has this concept, with this type.$$;
COMMENT ON COLUMN wemath_error_concepts.n IS $$n_one_step + n_multi_step: the count Fig. 11 draws.$$;