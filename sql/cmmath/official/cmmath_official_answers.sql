-- The same, one row per answer and breakdown, and whether their script counts it right there.
CREATE OR REPLACE MACRO cmmath_official_answers_of(runs) AS TABLE
SELECT o.run_id, o.grader, o.item_id, g.breakdown, g.key,
       o.is_right AND g.known               AS counted_right,
       o.is_right
FROM cmmath_official_groups_of(runs) o
CROSS JOIN LATERAL (VALUES ('subject', o.subject_key, o.subject_known),
                           ('grade_id', o.grade_key, o.grade_known),
                           ('question_type', o.type_key, o.type_known)) AS g(breakdown, key, known);

CREATE OR REPLACE VIEW cmmath_official_answers AS
FROM cmmath_official_answers_of('run_data');

COMMENT ON VIEW cmmath_official_answers IS $$CMMaTH, the authors' code: each answer's group per breakdown as their statics_acc.py assigns it, and whether it counts as right there.$$;
COMMENT ON COLUMN cmmath_official_answers.key IS $$the group (labels outside their lists pooled as UnKnown)$$;
COMMENT ON COLUMN cmmath_official_answers.counted_right IS $$graded right and in a group their dicts name (their script never counts right answers pooled into UnKnown)$$;
COMMENT ON COLUMN cmmath_official_answers.item_id IS $$The question.$$;
COMMENT ON COLUMN cmmath_official_answers.breakdown IS $$subject, grade_id or question_type.$$;
COMMENT ON COLUMN cmmath_official_answers.is_right IS $$the grader's verdict is TRUE (undecided: not right), in whichever group; their overall score counts these$$;
