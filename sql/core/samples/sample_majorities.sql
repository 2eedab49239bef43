-- maj@k: per run, grader, item and k (1 .. the item's valid samples), the majority answer
-- of its first k valid samples (in sample order): the extracted answer given most often ("no
-- answer found", a NULL extraction, is an answer like any other, and never right). A tie
-- between answers is declared (tie) and broken by the earliest sample among the tied answers,
-- as most voting code does (Python's Counter.most_common keeps first-seen order); the answer's
-- correctness is that of its earliest sample (the rule graders' verdict is a function of the
-- extracted answer, so every sample with that answer agrees).
-- Each valid sample `a` votes at every later (or the same) valid sample `b` of its item; at
-- `b` the k voters are the item's first k valid samples. (A join and two groupings, no window:
-- DuckDB 1.5's windows over many small partitions took four times as long; and no CTE, which in
-- a table macro would read every run's responses for a question about one.)
CREATE OR REPLACE MACRO sample_majorities_of(runs) AS TABLE
SELECT run_id, grader, item_id, k, answer, correct, votes,
       len(list_filter(tallies, lambda t: t = votes)) > 1 AS tie,
       len(tallies)                                       AS n_answers
FROM (
    SELECT run_id, grader, item_id, sum(votes)::BIGINT AS k,
           -- the most votes, then the earliest sample (samples are < 100000: runs.samples)
           arg_max_null(extracted, votes * 100000 - first)   AS answer,
           arg_max(correct, votes * 100000 - first)          AS correct,
           max(votes)                                        AS votes,
           list(votes)                                       AS tallies
    FROM (
        SELECT b.run_id, b.grader, b.item_id, b.sample AS upto, a.extracted,
               count(*) AS votes, min(a.sample) AS first, arg_min(a.correct, a.sample) AS correct
        FROM sample_verdicts_of(runs) b
        JOIN sample_verdicts_of(runs) a
          ON a.run_id = b.run_id AND a.grader = b.grader AND a.item_id = b.item_id
         AND a.sample <= b.sample
        GROUP BY b.run_id, b.grader, b.item_id, b.sample, a.extracted
    )
    GROUP BY run_id, grader, item_id, upto
);

CREATE OR REPLACE VIEW sample_majorities AS
FROM sample_majorities_of('run_data');

COMMENT ON VIEW sample_majorities IS $$maj@k per run, grader, item and k: the majority answer over the item's first k valid samples (sample order), ties declared and broken by the earliest sample among the tied answers; a NULL extraction (no answer found) votes as one answer, never right.$$;
COMMENT ON COLUMN sample_majorities.item_id IS $$The item.$$;
COMMENT ON COLUMN sample_majorities.k IS $$How many of the item's valid samples vote (its first k).$$;
COMMENT ON COLUMN sample_majorities.answer IS $$The majority answer (the extracted answer given most often; NULL: "no answer found" won).$$;
COMMENT ON COLUMN sample_majorities.correct IS $$Whether the majority answer is right (maj@k of the item).$$;
COMMENT ON COLUMN sample_majorities.votes IS $$How many of the k samples gave it.$$;
COMMENT ON COLUMN sample_majorities.tie IS $$Another answer had as many votes (the tie is broken by the earliest sample).$$;
COMMENT ON COLUMN sample_majorities.n_answers IS $$How many different answers the k samples gave.$$;
