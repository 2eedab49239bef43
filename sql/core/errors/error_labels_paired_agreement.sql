-- How far two labellers agree on the error types of the answers both labelled: the share on
-- which they give the same type (p_o) and Cohen's kappa over all the types, (p_o - p_e) /
-- (1 - p_e), with p_e = sum over types of P(a says it) x P(b says it): agreement beyond what
-- two labellers with these rates of each type reach by chance (the same definition as
-- grader_agreement's, over k types instead of right / wrong).
CREATE OR REPLACE VIEW error_labels_paired_agreement AS
WITH counts AS (
    SELECT run_id, benchmark, labeler_a, labeler_b,
           count(*)                          AS n_both,
           count(*) FILTER (type_a = type_b) AS n_agree
    FROM error_labels_paired
    GROUP BY ALL
), margin_a AS (
    SELECT run_id, labeler_a, labeler_b, type_a AS error_type, count(*) AS k
    FROM error_labels_paired GROUP BY ALL
), margin_b AS (
    SELECT run_id, labeler_a, labeler_b, type_b AS error_type, count(*) AS k
    FROM error_labels_paired GROUP BY ALL
), chance AS (
    SELECT a.run_id, a.labeler_a, a.labeler_b, sum(a.k * b.k) AS same_by_chance
    FROM margin_a a
    JOIN margin_b b USING (run_id, labeler_a, labeler_b, error_type)
    GROUP BY ALL
), rates AS (
    SELECT c.*, c.n_agree / c.n_both                                        AS p_o,
           coalesce(x.same_by_chance, 0) / (c.n_both * c.n_both)            AS p_e
    FROM counts c
    LEFT JOIN chance x USING (run_id, labeler_a, labeler_b)
)
SELECT run_id, benchmark, labeler_a, labeler_b, n_both, n_agree,
       p_o                                                    AS agreement,
       p_e                                                    AS expected,
       CASE WHEN p_e < 1 THEN (p_o - p_e) / (1 - p_e) END     AS kappa
FROM rates;

COMMENT ON VIEW error_labels_paired_agreement IS $$How far two labellers of a run agree on the error types of the answers both labelled: the agreement (p_o) and Cohen's kappa over all types, (p_o - p_e) / (1 - p_e), p_e the agreement expected by chance from each labeller's rate of each type. Every ordered pair of the run's labellers (mathprobe errors import-sheet, the report's audit).$$;
COMMENT ON COLUMN error_labels_paired_agreement.labeler_a IS $$The first labeller.$$;
COMMENT ON COLUMN error_labels_paired_agreement.labeler_b IS $$The second labeller.$$;
COMMENT ON COLUMN error_labels_paired_agreement.n_both IS $$Answers both labelled: what the rest is over.$$;
COMMENT ON COLUMN error_labels_paired_agreement.n_agree IS $$Answers both gave the same error type.$$;
COMMENT ON COLUMN error_labels_paired_agreement.agreement IS $$n_agree / n_both (p_o), a fraction in [0, 1].$$;
COMMENT ON COLUMN error_labels_paired_agreement.expected IS $$The agreement expected by chance (p_e): the sum over types of the two labellers' shares of that type.$$;
COMMENT ON COLUMN error_labels_paired_agreement.kappa IS $$Cohen's kappa over all types: (p_o - p_e) / (1 - p_e); 1 = perfect, 0 = chance; NULL when both give every answer the same single type (p_e = 1).$$;