-- The answers of CMMaTH runs (items whose response that counts is an answer), judge runs not;
-- each layer here for a set of runs (sql/core/current/responses_of.sql: `runs` names run_data or
-- live_run_spans), its view over run_data.
CREATE OR REPLACE MACRO cmmath_answer_ids_of(runs) AS TABLE
SELECT k.run_id, k.item_id, k.answer_id
FROM current_response_ids_of(runs) k
JOIN runs r ON r.run_id = k.run_id
WHERE r.benchmark = 'cmmath' AND r.setting NOT IN ('judge', 'judge-audit')
  AND k.answer_id IS NOT NULL;

CREATE OR REPLACE VIEW cmmath_answer_ids AS
FROM cmmath_answer_ids_of('run_data');

COMMENT ON VIEW cmmath_answer_ids IS $$CMMaTH: the answers of each run (judge runs excluded): items whose response that counts is an answer (ok, refused, missing), with its response id.$$;
COMMENT ON COLUMN cmmath_answer_ids.item_id IS $$The CMMaTH item (items.item_id).$$;
COMMENT ON COLUMN cmmath_answer_ids.answer_id IS $$the response that counts (responses.response_id)$$;
