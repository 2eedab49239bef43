-- WE-MATH (Appendix E.2): "errors in multi-step problems are matched to the one-step sub-problems
-- of the same concepts". Each labelled wrong composite question beside its problem's one-step
-- questions: their verdicts under the same grader and, where wrong, their error types by the
-- same labeller; so a composite Knowledge Error can be read against the sub-problem of the
-- concept it lacks.
CREATE OR REPLACE VIEW wemath_error_steps AS
WITH multi AS (
    SELECT v.run_id, v.grader, l.labeler, l.group_id AS problem_id, l.item_id AS multi_item,
           l.error_type AS multi_error_type, l.first_error AS multi_first_error
    FROM item_verdicts v
    JOIN error_labels_current l
      ON l.run_id = v.run_id AND l.item_id = v.item_id AND l.response_id = v.response_id
    WHERE v.benchmark = 'wemath' AND NOT v.correct AND l.part LIKE '%multi'
)
SELECT m.run_id, m.grader, m.labeler, m.problem_id, m.multi_item, m.multi_error_type,
       m.multi_first_error, i.part AS step, i.item_id AS step_item, i.concept AS step_concept,
       CASE WHEN sv.correct THEN 'right' WHEN NOT sv.correct THEN 'wrong'
            ELSE 'no verdict' END                               AS step_verdict,
       CASE WHEN NOT sv.correct THEN sl.error_type END          AS step_error_type
FROM multi m
JOIN items i
  ON i.benchmark = 'wemath' AND i.group_id = m.problem_id AND i.part NOT LIKE '%multi'
LEFT JOIN item_verdicts sv
  ON sv.run_id = m.run_id AND sv.grader = m.grader AND sv.item_id = i.item_id
LEFT JOIN error_labels_current sl
  ON sl.run_id = m.run_id AND sl.labeler = m.labeler AND sl.item_id = i.item_id;

COMMENT ON VIEW wemath_error_steps IS $$WE-MATH Appendix E.2: each labelled wrong composite (multi-step) question matched to the one-step sub-problems of its problem (the same concepts), with their verdicts under the same grader and, where wrong, their error types by the same labeller.$$;
COMMENT ON COLUMN wemath_error_steps.grader IS $$The grader whose verdicts these are.$$;
COMMENT ON COLUMN wemath_error_steps.labeler IS $$The labeller whose types these are.$$;
COMMENT ON COLUMN wemath_error_steps.problem_id IS $$The WE-MATH problem (its ID).$$;
COMMENT ON COLUMN wemath_error_steps.multi_item IS $$The composite question (items.item_id, {ID}/{2|3}steps_multi).$$;
COMMENT ON COLUMN wemath_error_steps.multi_error_type IS $$The composite question's error type.$$;
COMMENT ON COLUMN wemath_error_steps.multi_first_error IS $$Its first wrong step, as quoted.$$;
COMMENT ON COLUMN wemath_error_steps.step IS $$A one-step sub-problem's key (2steps_1 ... 3steps_3).$$;
COMMENT ON COLUMN wemath_error_steps.step_item IS $$That one-step question (items.item_id).$$;
COMMENT ON COLUMN wemath_error_steps.step_concept IS $$Its knowledge concept.$$;
COMMENT ON COLUMN wemath_error_steps.step_verdict IS $$right, wrong, or no verdict (not answered, a failed call).$$;
COMMENT ON COLUMN wemath_error_steps.step_error_type IS $$Its error type by the same labeller where it is wrong and labelled; NULL otherwise.$$;