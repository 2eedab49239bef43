-- The answers two graders of a run disagree on, to be read (with the answer's text).
CREATE OR REPLACE VIEW grader_disagreements AS
SELECT p.run_id, p.benchmark, p.item_id, p.response_id, p.grader_a, p.grader_b,
       p.correct_a, p.correct_b, p.extracted_a, p.extracted_b, i.gold, r.response
FROM grader_pairs p
JOIN responses r ON r.response_id = p.response_id
LEFT JOIN items i ON i.benchmark = p.benchmark AND i.item_id = p.item_id
WHERE p.correct_a <> p.correct_b;

COMMENT ON VIEW grader_disagreements IS $$The answers two graders of a run decide differently (one right, the other wrong), with the reference answer and the response, for reading: neither grader is taken to be right. What the HTML report's item browser filters on.$$;
COMMENT ON COLUMN grader_disagreements.item_id IS $$The item answered.$$;
COMMENT ON COLUMN grader_disagreements.response_id IS $$The answer graded (responses.response_id).$$;
COMMENT ON COLUMN grader_disagreements.grader_a IS $$The first grader.$$;
COMMENT ON COLUMN grader_disagreements.grader_b IS $$The second grader.$$;
COMMENT ON COLUMN grader_disagreements.correct_a IS $$The first grader's verdict.$$;
COMMENT ON COLUMN grader_disagreements.correct_b IS $$The second grader's verdict.$$;
COMMENT ON COLUMN grader_disagreements.extracted_a IS $$What the first grader read as the answer.$$;
COMMENT ON COLUMN grader_disagreements.extracted_b IS $$What the second grader read as the answer.$$;
COMMENT ON COLUMN grader_disagreements.gold IS $$The reference answer (items.gold).$$;
COMMENT ON COLUMN grader_disagreements.response IS $$The answer's text (responses.response).$$;
