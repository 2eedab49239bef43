-- Two labellers on the same answer: what an audit against people (or another model) compares.
CREATE OR REPLACE VIEW error_labels_paired AS
SELECT a.run_id, a.benchmark, a.item_id, a.response_id,
       a.labeler AS labeler_a, b.labeler AS labeler_b,
       a.source  AS source_a,  b.source  AS source_b,
       a.error_type AS type_a, b.error_type AS type_b
FROM error_labels_current a
JOIN error_labels_current b
  ON b.run_id = a.run_id AND b.item_id = a.item_id AND b.labeler <> a.labeler;

COMMENT ON VIEW error_labels_paired IS $$Each answer two labellers both labelled, their error types side by side, for every ordered pair of a run's labellers (a model and a person's sheet, two models): what their agreement is computed over.$$;
COMMENT ON COLUMN error_labels_paired.item_id IS $$The item answered.$$;
COMMENT ON COLUMN error_labels_paired.response_id IS $$The answer both labelled (responses.response_id).$$;
COMMENT ON COLUMN error_labels_paired.labeler_a IS $$The first labeller.$$;
COMMENT ON COLUMN error_labels_paired.labeler_b IS $$The second labeller.$$;
COMMENT ON COLUMN error_labels_paired.source_a IS $$How the first labeller's label was made: rules, model or human.$$;
COMMENT ON COLUMN error_labels_paired.source_b IS $$How the second labeller's label was made.$$;
COMMENT ON COLUMN error_labels_paired.type_a IS $$The first labeller's error type.$$;
COMMENT ON COLUMN error_labels_paired.type_b IS $$The second labeller's error type.$$;