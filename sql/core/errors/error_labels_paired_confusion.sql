-- The confusion table of two labellers: how many answers the first gave one type and the second
-- another (the diagonal: the same).
CREATE OR REPLACE VIEW error_labels_paired_confusion AS
SELECT run_id, benchmark, labeler_a, labeler_b, type_a, type_b, count(*) AS n
FROM error_labels_paired
GROUP BY ALL;

COMMENT ON VIEW error_labels_paired_confusion IS $$The confusion table of two labellers of a run: per pair of error types, how many answers the first labeller gave the one and the second the other (type_a = type_b: they agree).$$;
COMMENT ON COLUMN error_labels_paired_confusion.labeler_a IS $$The first labeller.$$;
COMMENT ON COLUMN error_labels_paired_confusion.labeler_b IS $$The second labeller.$$;
COMMENT ON COLUMN error_labels_paired_confusion.type_a IS $$The first labeller's error type.$$;
COMMENT ON COLUMN error_labels_paired_confusion.type_b IS $$The second labeller's error type.$$;
COMMENT ON COLUMN error_labels_paired_confusion.n IS $$Answers labelled so.$$;