-- One verdict per (run, item, grader), only where it grades the response that counts, so a
-- verdict on a superseded response never reaches a metric. Failed calls (`infra_failed`) have
-- no verdict: they are never scored as wrong answers. A refusal is the model's answer: wrong.
-- (The response that counts is an answer exactly when the item has one: answer_id.)
-- A verdict is found by the response it grades (its id, unique in the store, names the run:
-- Store.write_verdicts refuses a verdict on another run's response), not by its run_id: a
-- condition on verdicts.run_id would be pushed into the scan of verdicts, which for a run with
-- nothing to join (all its figures stored, or of another benchmark) then reads the whole table
-- looking for that run's rows; joined by response id the scan is pruned to the ids found, and
-- stops at its first rows when none are.
CREATE OR REPLACE MACRO item_verdicts_of(runs) AS TABLE
SELECT k.run_id, r.benchmark, v.item_id, v.grader, v.correct, v.extracted, v.response_id
FROM verdicts v
JOIN current_response_ids_of(runs) k ON k.item_id = v.item_id AND k.answer_id = v.response_id
JOIN runs r ON r.run_id = k.run_id;

CREATE OR REPLACE VIEW item_verdicts AS
FROM item_verdicts_of('run_data');

COMMENT ON VIEW item_verdicts IS $$Layer 1: one verdict per run, item and grader, on the response that counts; failed calls have none (never scored wrong).$$;
COMMENT ON COLUMN item_verdicts.item_id IS $$The item.$$;
COMMENT ON COLUMN item_verdicts.correct IS $$Whether the answer is right.$$;
COMMENT ON COLUMN item_verdicts.extracted IS $$The answer the grader extracted.$$;
COMMENT ON COLUMN item_verdicts.response_id IS $$The response graded.$$;
