-- The graders layer, beside the figures: two graders of the same run, answer by answer. Every benchmark's graders
-- (rules, a judge, the cascade, verdicts imported from the authors' or a peer's files) grade
-- the same stored answers; these views say how often two of them agree, and where they do not
-- (`mathprobe judge-audit --run`, the graders table of `mathprobe compare`, the HTML report's
-- item browser).

-- Each answer two graders both decided (verdicts on the response that counts).
CREATE OR REPLACE VIEW grader_pairs AS
SELECT a.run_id, a.benchmark, a.item_id, a.response_id,
       a.grader    AS grader_a,    b.grader    AS grader_b,
       a.correct   AS correct_a,   b.correct   AS correct_b,
       a.extracted AS extracted_a, b.extracted AS extracted_b
FROM item_verdicts a
JOIN item_verdicts b ON b.run_id = a.run_id AND b.item_id = a.item_id AND b.grader <> a.grader;

COMMENT ON VIEW grader_pairs IS $$Two graders of one run on each answer both decided (an answer one of them left undecided, or a judge_failed one, is not here): their verdicts and extracted answers side by side, for every ordered pair of the run's graders.$$;
COMMENT ON COLUMN grader_pairs.item_id IS $$The item answered.$$;
COMMENT ON COLUMN grader_pairs.response_id IS $$The answer both graders graded (responses.response_id).$$;
COMMENT ON COLUMN grader_pairs.grader_a IS $$The first grader.$$;
COMMENT ON COLUMN grader_pairs.grader_b IS $$The second grader.$$;
COMMENT ON COLUMN grader_pairs.correct_a IS $$The first grader's verdict: right (true) or wrong (false).$$;
COMMENT ON COLUMN grader_pairs.correct_b IS $$The second grader's verdict.$$;
COMMENT ON COLUMN grader_pairs.extracted_a IS $$What the first grader read as the answer (an option letter, a value; Yes/No for a judge of the answer's correctness).$$;
COMMENT ON COLUMN grader_pairs.extracted_b IS $$What the second grader read as the answer.$$;
