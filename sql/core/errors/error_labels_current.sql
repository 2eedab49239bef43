-- The labels that count: those on the answer that counts for their run and item (a label on an
-- answer since superseded, e.g. by a retried call, is left out), with the item's concept.
CREATE OR REPLACE VIEW error_labels_current AS
SELECT l.run_id, r.benchmark, l.item_id, l.response_id, l.labeler, l.source,
       l.grader AS labelled_under, l.error_type, l.first_error, l.rationale,
       i.concept, i.group_id, i.part
FROM error_labels l
JOIN current_response_ids k
  ON k.run_id = l.run_id AND k.item_id = l.item_id AND k.answer_id = l.response_id
JOIN runs r ON r.run_id = l.run_id
LEFT JOIN items i ON i.benchmark = r.benchmark AND i.item_id = l.item_id;

COMMENT ON VIEW error_labels_current IS $$The error labels that count: each on the answer that counts for its run and item (a label on a superseded answer is left out), with the item's concept, group and part.$$;
COMMENT ON COLUMN error_labels_current.item_id IS $$The item answered.$$;
COMMENT ON COLUMN error_labels_current.response_id IS $$The answer labelled: the one that counts (current_response_ids.answer_id).$$;
COMMENT ON COLUMN error_labels_current.labeler IS $$Who labelled it (a labeller model's BACKEND:NAME, or a person's name).$$;
COMMENT ON COLUMN error_labels_current.source IS $$rules, model or human.$$;
COMMENT ON COLUMN error_labels_current.labelled_under IS $$The grader that called the answer wrong when it was labelled.$$;
COMMENT ON COLUMN error_labels_current.error_type IS $$The error type (error_types.error_type).$$;
COMMENT ON COLUMN error_labels_current.first_error IS $$The first wrong step, as quoted.$$;
COMMENT ON COLUMN error_labels_current.rationale IS $$Why that step is wrong.$$;
COMMENT ON COLUMN error_labels_current.concept IS $$The item's concept (items.concept: a WE-MATH leaf, ';'-joined for a composite question; a ConceptMath path; a CMMaTH knowledge point).$$;
COMMENT ON COLUMN error_labels_current.group_id IS $$The item's group (items.group_id: the WE-MATH problem, the ConceptMath system, the CMMaTH grade group).$$;
COMMENT ON COLUMN error_labels_current.part IS $$The item's part of its group (items.part: the WE-MATH key, e.g. 2steps_multi).$$;