-- WE-MATH (Qiao et al. 2024). Layer 2 (sql/wemath/verdicts/): verdicts joined to the problem
-- structure, whole problems only; layer 3 (figures/): the paper's figures, each written as the
-- paper defines it; layer 4 (units/): what each problem contributes to them, for compare.
--
-- A problem counts only when every one of its questions has a verdict. A failed call
-- (`infra_failed`, never graded), a reply cut at the token cap before its answer (`truncated`,
-- never graded) or a question not asked yet leaves its problem out of EVERY
-- figure alike (N, S1-S3, the categories, the concepts), never counted as wrong; the report
-- says how many (wemath_problem_coverage). `--retry-failed` brings them back.
--
-- Each layer under the figures is a table macro over a set of runs (run_data: all runs, or
-- live_run_spans: those whose stored figures are not current; see
-- sql/core/current/responses_of.sql), and the view of its name is the macro over all runs. The
-- figures stored per run (a line `-- @stored <view>` after their macro `<view>_of(runs)`:
-- mathprobe/store/stored_sql.py writes out the table <view>_stored and the view) read their
-- stored rows where current and compute only the other runs.

-- One row per graded question, with its place in the composite problem.
CREATE OR REPLACE MACRO wemath_question_verdicts_of(runs) AS TABLE
SELECT iv.run_id, iv.grader, iv.item_id,
       i.group_id                                   AS problem_id,
       i.part                                       AS key,          -- 2steps_1 .. 3steps_multi
       CAST(left(i.part, 1) AS INTEGER)             AS steps,        -- 2 or 3
       i.part LIKE '%multi'                         AS is_composite,
       i.concept,
       iv.correct
FROM item_verdicts_of(runs) iv
JOIN items i ON i.benchmark = 'wemath' AND i.item_id = iv.item_id
WHERE iv.benchmark = 'wemath';

CREATE OR REPLACE VIEW wemath_question_verdicts AS
FROM wemath_question_verdicts_of('run_data');

COMMENT ON VIEW wemath_question_verdicts IS $$Every graded WE-MATH question of a run, with its problem, key, steps and leaf concept; complete or not.$$;
COMMENT ON COLUMN wemath_question_verdicts.item_id IS $$The question: {ID}/{key}.$$;
COMMENT ON COLUMN wemath_question_verdicts.problem_id IS $$Its composite problem (ID).$$;
COMMENT ON COLUMN wemath_question_verdicts.key IS $$Which question of the problem: 2steps_1, 2steps_2, 2steps_multi, 3steps_1 .. 3steps_multi.$$;
COMMENT ON COLUMN wemath_question_verdicts.steps IS $$Steps of the problem: 2 or 3.$$;
COMMENT ON COLUMN wemath_question_verdicts.is_composite IS $$Whether it is the problem's composite (multi) question.$$;
COMMENT ON COLUMN wemath_question_verdicts.concept IS $$Its leaf concept (';'-joined leaves for a composite question).$$;
COMMENT ON COLUMN wemath_question_verdicts.correct IS $$Whether the answer is right.$$;
