-- WE-MATH's four dimensions for runs asked --samples K (docs/sampling.md), per run, grader,
-- `answers` and problem: `answers` is 's<k>' for the answers of sample k alone (every question
-- of the problem answered by its sample k), or 'maj' for the majority answers (each question's
-- majority vote over all its valid samples, sample_majorities). A problem counts where every
-- one of its questions has a verdict in those answers, as for the answers that count
-- (wemath_problem_dimensions); the classification is wemath_dimension's.
CREATE OR REPLACE MACRO wemath_sample_dimensions_of(runs) AS TABLE
WITH answers AS (
    SELECT run_id, grader, item_id, 's' || sample AS answers, correct
    FROM sample_verdicts_of(runs)
    WHERE benchmark = 'wemath'
    UNION ALL
    SELECT m.run_id, m.grader, m.item_id, 'maj', m.correct
    FROM sample_majorities_of(runs) m
    JOIN sample_items_of(runs) i USING (run_id, grader, item_id)
    WHERE m.k = i.n                               -- the vote of all its valid samples
), problems AS (
    SELECT a.run_id, a.grader, a.answers, i.group_id AS problem_id,
           bool_and(a.correct) FILTER (NOT i.part LIKE '%multi') AS every_step,
           bool_or(a.correct) FILTER (NOT i.part LIKE '%multi')  AS some_step,
           bool_or(a.correct) FILTER (i.part LIKE '%multi')      AS composite,
           count(*) FILTER (NOT i.part LIKE '%multi') = CAST(left(any_value(i.part), 1) AS INTEGER)
             AND count(*) FILTER (i.part LIKE '%multi') = 1      AS complete
    FROM answers a
    JOIN items i ON i.benchmark = 'wemath' AND i.item_id = a.item_id
    GROUP BY a.run_id, a.grader, a.answers, i.group_id
)
SELECT p.run_id, p.grader, p.answers, p.problem_id, r.rule,
       wemath_dimension(p.every_step, p.some_step, p.composite, r.rule) AS dimension
FROM problems p
CROSS JOIN (VALUES ('strict'), ('loose')) r(rule)
WHERE p.complete;

CREATE OR REPLACE VIEW wemath_sample_dimensions AS
FROM wemath_sample_dimensions_of('run_data');

COMMENT ON VIEW wemath_sample_dimensions IS $$For runs asked --samples K: each complete problem's dimension (IK, IG, CM, RM) under each rule, for the answers of each sample (answers s0, s1, ...) and for the majority answers (maj: each question's majority vote over its samples).$$;
COMMENT ON COLUMN wemath_sample_dimensions.answers IS $$Whose answers: s<k> (sample k's alone) or maj (each question's majority answer over its valid samples).$$;
COMMENT ON COLUMN wemath_sample_dimensions.problem_id IS $$The problem.$$;
COMMENT ON COLUMN wemath_sample_dimensions.rule IS $$strict or loose.$$;
COMMENT ON COLUMN wemath_sample_dimensions.dimension IS $$IK, IG, CM or RM (wemath_dimension).$$;
