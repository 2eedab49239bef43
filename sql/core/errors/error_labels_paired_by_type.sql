-- Agreement of two labellers on one error type at a time (that type or another): its confusion
-- table and Cohen's kappa exactly as grader_agreement computes them for right / wrong, over the
-- answers both labelled; one row per type either of them gave.
CREATE OR REPLACE VIEW error_labels_paired_by_type AS
WITH types AS (
    SELECT DISTINCT run_id, labeler_a, labeler_b, error_type
    FROM (SELECT run_id, labeler_a, labeler_b, type_a AS error_type FROM error_labels_paired
          UNION ALL
          SELECT run_id, labeler_a, labeler_b, type_b FROM error_labels_paired)
), counts AS (
    SELECT p.run_id, p.benchmark, p.labeler_a, p.labeler_b, t.error_type,
           count(*)                                                           AS n_both,
           count(*) FILTER (p.type_a = t.error_type AND p.type_b = t.error_type)   AS both_type,
           count(*) FILTER (p.type_a = t.error_type AND p.type_b <> t.error_type)  AS only_a,
           count(*) FILTER (p.type_a <> t.error_type AND p.type_b = t.error_type)  AS only_b,
           count(*) FILTER (p.type_a <> t.error_type AND p.type_b <> t.error_type) AS neither
    FROM error_labels_paired p
    JOIN types t USING (run_id, labeler_a, labeler_b)
    GROUP BY ALL
), rates AS (
    SELECT *, (both_type + neither) / n_both                                   AS p_o,
           ((both_type + only_a) * (both_type + only_b)
            + (only_b + neither) * (only_a + neither)) / (n_both * n_both)     AS p_e
    FROM counts
)
SELECT run_id, benchmark, labeler_a, labeler_b, error_type, n_both,
       both_type, only_a, only_b, neither,
       p_o                                                    AS agreement,
       CASE WHEN p_e < 1 THEN (p_o - p_e) / (1 - p_e) END     AS kappa
FROM rates;

COMMENT ON VIEW error_labels_paired_by_type IS $$Two labellers of a run on one error type at a time (that type or another), over the answers both labelled: the confusion table, the agreement and Cohen's kappa as grader_agreement computes them for right / wrong; one row per type either labeller gave.$$;
COMMENT ON COLUMN error_labels_paired_by_type.labeler_a IS $$The first labeller.$$;
COMMENT ON COLUMN error_labels_paired_by_type.labeler_b IS $$The second labeller.$$;
COMMENT ON COLUMN error_labels_paired_by_type.error_type IS $$The error type the row is about.$$;
COMMENT ON COLUMN error_labels_paired_by_type.n_both IS $$Answers both labelled.$$;
COMMENT ON COLUMN error_labels_paired_by_type.both_type IS $$Answers both gave this type.$$;
COMMENT ON COLUMN error_labels_paired_by_type.only_a IS $$Answers only the first gave this type.$$;
COMMENT ON COLUMN error_labels_paired_by_type.only_b IS $$Answers only the second gave this type.$$;
COMMENT ON COLUMN error_labels_paired_by_type.neither IS $$Answers neither gave this type.$$;
COMMENT ON COLUMN error_labels_paired_by_type.agreement IS $$Share of the answers on which both say this type or both say another, a fraction in [0, 1].$$;
COMMENT ON COLUMN error_labels_paired_by_type.kappa IS $$Cohen's kappa of this type against the rest: (p_o - p_e) / (1 - p_e); NULL when both call every answer the same (p_e = 1).$$;