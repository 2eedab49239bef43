-- Problems on which the two rule graders disagree, with the response they graded.
-- (Other graders' verdicts are read and left NULL by the FILTERs rather than filtered out by
-- grader, and the response is found by its id alone: a condition on the scans themselves would
-- have them read through other runs' rows before a question about one run finds it has none.)
CREATE OR REPLACE VIEW conceptmath_grader_disagreement AS
WITH both_graders AS (   -- per graded problem, the two verdicts on the response that counts
    SELECT run_id, item_id, any_value(response_id)             AS response_id,
           bool_or(correct) FILTER (grader = 'official')       AS official,
           bool_or(correct) FILTER (grader = 'strict')         AS strict
    FROM item_verdicts
    WHERE benchmark = 'conceptmath'
    GROUP BY run_id, item_id
)
SELECT b.run_id, b.item_id, i.group_id AS system, b.official, b.strict, c.response
FROM both_graders b
JOIN items i ON i.benchmark = 'conceptmath' AND i.item_id = b.item_id
JOIN responses c ON c.item_id = b.item_id AND c.response_id = b.response_id
WHERE b.official <> b.strict;

COMMENT ON VIEW conceptmath_grader_disagreement IS $$Problems on which the official and strict graders disagree, with the response they graded.$$;
COMMENT ON COLUMN conceptmath_grader_disagreement.item_id IS $$The problem.$$;
COMMENT ON COLUMN conceptmath_grader_disagreement.system IS $$Its system.$$;
COMMENT ON COLUMN conceptmath_grader_disagreement.official IS $$The official grader's verdict.$$;
COMMENT ON COLUMN conceptmath_grader_disagreement.strict IS $$The strict grader's verdict.$$;
COMMENT ON COLUMN conceptmath_grader_disagreement.response IS $$The response graded.$$;
