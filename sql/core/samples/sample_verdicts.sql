-- Layer 1 of the sampled figures (sql/core/samples/, docs/sampling.md): one verdict per run,
-- item, sample and grader, on the response that counts for that sample, for the runs that ask
-- each item more than once (runs.samples > 1). As in item_verdicts, failed and cut calls have
-- none (they are in no figure), and a verdict is found by the response it grades.
CREATE OR REPLACE MACRO sample_verdicts_of(runs) AS TABLE
SELECT k.run_id, r.benchmark, v.item_id, k.sample, v.grader, v.correct, v.extracted,
       v.response_id
FROM verdicts v
JOIN current_sample_response_ids_of(runs) k
  ON k.item_id = v.item_id AND k.answer_id = v.response_id
JOIN runs r ON r.run_id = k.run_id AND r.samples > 1;

CREATE OR REPLACE VIEW sample_verdicts AS
FROM sample_verdicts_of('run_data');

COMMENT ON VIEW sample_verdicts IS $$Per run asked more than one sample of each item (--samples K), one verdict per item, sample and grader on the response that counts for that sample; failed and cut calls have none.$$;
COMMENT ON COLUMN sample_verdicts.item_id IS $$The item.$$;
COMMENT ON COLUMN sample_verdicts.correct IS $$Whether this sample's answer is right.$$;
COMMENT ON COLUMN sample_verdicts.extracted IS $$The answer the grader extracted (what the majority vote counts; NULL: none found).$$;
COMMENT ON COLUMN sample_verdicts.response_id IS $$The response graded.$$;
