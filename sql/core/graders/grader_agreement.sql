-- Agreement of two graders of a run: the confusion table of their verdicts on the answers both
-- decided, the share they agree on, and Cohen's kappa (agreement beyond what two graders
-- with these rates of "right" would reach by chance): kappa = (p_o - p_e) / (1 - p_e), where
-- p_o is the agreement and p_e = P(both right) + P(both wrong) by chance.
CREATE OR REPLACE VIEW grader_agreement AS
WITH counts AS (
    SELECT run_id, benchmark, grader_a, grader_b,
           count(*)                                              AS n_both,
           count(*) FILTER (correct_a AND correct_b)             AS both_right,
           count(*) FILTER (correct_a AND NOT correct_b)         AS only_a_right,
           count(*) FILTER (NOT correct_a AND correct_b)         AS only_b_right,
           count(*) FILTER (NOT correct_a AND NOT correct_b)     AS both_wrong
    FROM grader_pairs
    GROUP BY run_id, benchmark, grader_a, grader_b
), graded AS (
    SELECT run_id, grader, count(*) AS n_graded
    FROM item_verdicts
    GROUP BY run_id, grader
), rates AS (
    SELECT c.*, ga.n_graded AS n_a, gb.n_graded AS n_b,
           (c.both_right + c.both_wrong) / c.n_both                               AS p_o,
           ((c.both_right + c.only_a_right) * (c.both_right + c.only_b_right)
            + (c.only_b_right + c.both_wrong) * (c.only_a_right + c.both_wrong))
           / (c.n_both * c.n_both)                                                AS p_e
    FROM counts c
    JOIN graded ga ON ga.run_id = c.run_id AND ga.grader = c.grader_a
    JOIN graded gb ON gb.run_id = c.run_id AND gb.grader = c.grader_b
)
SELECT run_id, benchmark, grader_a, grader_b, n_a, n_b, n_both,
       both_right, only_a_right, only_b_right, both_wrong,
       p_o                                                   AS agreement,
       CASE WHEN p_e < 1 THEN (p_o - p_e) / (1 - p_e) END    AS kappa,
       (both_right + only_a_right) / n_both                  AS accuracy_a,
       (both_right + only_b_right) / n_both                  AS accuracy_b
FROM rates;

COMMENT ON VIEW grader_agreement IS $$How often two graders of a run agree, over the answers both decided: the confusion table of their verdicts, the agreement, Cohen's kappa (chance-corrected agreement: (p_o - p_e) / (1 - p_e)), and each grader's accuracy on those answers. Every ordered pair of the run's graders.$$;
COMMENT ON COLUMN grader_agreement.grader_a IS $$The first grader.$$;
COMMENT ON COLUMN grader_agreement.grader_b IS $$The second grader.$$;
COMMENT ON COLUMN grader_agreement.n_a IS $$Answers of the run the first grader decided.$$;
COMMENT ON COLUMN grader_agreement.n_b IS $$Answers of the run the second grader decided.$$;
COMMENT ON COLUMN grader_agreement.n_both IS $$Answers both decided: what the rest is over.$$;
COMMENT ON COLUMN grader_agreement.both_right IS $$Answers both call right.$$;
COMMENT ON COLUMN grader_agreement.only_a_right IS $$Answers the first calls right and the second wrong.$$;
COMMENT ON COLUMN grader_agreement.only_b_right IS $$Answers the second calls right and the first wrong.$$;
COMMENT ON COLUMN grader_agreement.both_wrong IS $$Answers both call wrong.$$;
COMMENT ON COLUMN grader_agreement.agreement IS $$Share of the answers both decided on which their verdicts are equal (p_o), a fraction in [0, 1].$$;
COMMENT ON COLUMN grader_agreement.kappa IS $$Cohen's kappa: (p_o - p_e) / (1 - p_e), p_e the agreement expected by chance from each grader's share of right; 1 = perfect, 0 = chance; NULL when both call every answer the same (p_e = 1).$$;
COMMENT ON COLUMN grader_agreement.accuracy_a IS $$The first grader's share of right on the answers both decided.$$;
COMMENT ON COLUMN grader_agreement.accuracy_b IS $$The second grader's share of right on the answers both decided.$$;
