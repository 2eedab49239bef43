-- CMMaTH (Li et al. 2024). Layer 2 (sql/cmmath/verdicts/): every answer of a run with each
-- grader's verdict on it; layer 3: the figures as the paper defines them (figures/,
-- cmmath_paper_*) and the authors' own figures as their code computes them (official/,
-- cmmath_official_*); layer 4 (units/): what each answer contributes to them, for compare.
--
-- Accuracy is over ALL answers: an answer a grader left undecided (the rule stage could not
-- read it and no judge has decided it) is counted, as not right, and shown separately
-- (n_undecided, coverage); a figure is never an accuracy over the decided answers only.
-- Failed calls are no answers (never counted as wrong); a refusal or a missing response is.

-- cmmath_item_verdicts: this view's name in stores an older mathprobe made, computed there over
-- the decided answers only; dropped.
DROP VIEW IF EXISTS cmmath_item_verdicts;

-- Layer 2: one row per answer of a CMMaTH run and grader of that run (every grader that gave
-- the run a verdict, and 'rules' always), with the question's labels; `correct` is NULL where
-- that grader left the answer undecided. Judge runs (setting judge / judge-audit) hold the
-- judge's replies, not answers: they are not here.
-- (Written without CTEs used twice: DuckDB would compute such a CTE for every run before a
-- run filter applies; views and subqueries take the filter. Verdicts are found by the response
-- they grade, not by run_id, as in item_verdicts_of.)
CREATE OR REPLACE MACRO cmmath_answers_of(runs) AS TABLE
SELECT a.run_id, g.grader, a.item_id,
       ci.answer_type, ci.grade_id, ci.grade_group, ci.category, ci.answer, ci.official_point,
       v.correct, v.extracted
FROM cmmath_answer_ids_of(runs) a
JOIN (SELECT a.run_id, v.grader                 -- every grader with a verdict on an answer
      FROM verdicts v
      JOIN cmmath_answer_ids_of(runs) a
        ON a.item_id = v.item_id AND a.answer_id = v.response_id
      UNION
      SELECT run_id, 'rules' FROM runs
      WHERE benchmark = 'cmmath' AND setting NOT IN ('judge', 'judge-audit')) g
  ON g.run_id = a.run_id
JOIN cmmath_all_items ci ON ci.item_id = a.item_id
LEFT JOIN verdicts v
       ON v.item_id = a.item_id AND v.grader = g.grader AND v.response_id = a.answer_id;

CREATE OR REPLACE VIEW cmmath_answers AS
FROM cmmath_answers_of('run_data');

COMMENT ON VIEW cmmath_answers IS $$CMMaTH layer 2: every answer of a run (failed calls excluded) under every grader of the run, with the question's labels; correct NULL = that grader left it undecided.$$;
COMMENT ON COLUMN cmmath_answers.correct IS $$the grader's verdict; NULL: undecided (rules could not read it, no judge decided it, or the judge's reply had no verdict)$$;
COMMENT ON COLUMN cmmath_answers.extracted IS $$what the grader read as the answer (the authors' judge: its Yes/No)$$;
COMMENT ON COLUMN cmmath_answers.item_id IS $$The question (problem_id).$$;
COMMENT ON COLUMN cmmath_answers.answer_type IS $$choice or free_form.$$;
COMMENT ON COLUMN cmmath_answers.grade_id IS $$School grade, 1 to 12.$$;
COMMENT ON COLUMN cmmath_answers.grade_group IS $$1 elementary, 2 junior, 3 senior.$$;
COMMENT ON COLUMN cmmath_answers.category IS $$The visual subject.$$;
COMMENT ON COLUMN cmmath_answers.answer IS $$The reference answer as in cmmath.json.$$;
COMMENT ON COLUMN cmmath_answers.official_point IS $$The one knowledge point the authors' SSR counts the question toward (NULL: their walk skips it).$$;
