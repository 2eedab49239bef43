-- ConceptMath Table 4: for the unmastered concepts of a model (conceptmath_unmastered: the 10
-- lowest level-3 concepts of each system, as the report marks them), the error reason of its wrong
-- answers (Calculation Error, Knowledge Error; "Other Error" where mathprobe's labeller found
-- neither), how many of each, and one example each: the question and the model's answer (its
-- first wrong step as the labeller quoted it, else the answer's end), the first by item id.
CREATE OR REPLACE VIEW conceptmath_error_examples AS
WITH labelled AS (
    SELECT v.run_id, v.grader, l.labeler, l.item_id, l.response_id, l.error_type, l.first_error,
           i.system, i.cate0 || '/' || i.cate1 || '/' || i.cate2 AS concept
    FROM item_verdicts v
    JOIN error_labels_current l
      ON l.run_id = v.run_id AND l.item_id = v.item_id AND l.response_id = v.response_id
    JOIN conceptmath_items i ON i.item_id = v.item_id
    WHERE v.benchmark = 'conceptmath' AND NOT v.correct
), per_type AS (
    SELECT run_id, grader, labeler, system, concept, error_type, count(*) AS n,
           min(item_id) AS item_id
    FROM labelled
    GROUP BY ALL
)
SELECT u.run_id, u.grader, p.labeler, u.system, u.concept, u.rank, u.accuracy,
       u.n AS n_problems, p.error_type, p.n, p.item_id, i.question,
       coalesce(l.first_error, right(r.response, 300)) AS answer
FROM conceptmath_unmastered u
JOIN per_type p
  ON p.run_id = u.run_id AND p.grader = u.grader AND p.system = u.system AND p.concept = u.concept
JOIN labelled l
  ON l.run_id = p.run_id AND l.grader = p.grader AND l.labeler = p.labeler AND l.item_id = p.item_id
JOIN items i ON i.benchmark = 'conceptmath' AND i.item_id = p.item_id
JOIN responses r ON r.response_id = l.response_id
WHERE u.level = 3 AND u.rank <= 10;

COMMENT ON VIEW conceptmath_error_examples IS $$ConceptMath Table 4: for the unmastered concepts of a run (the 10 lowest level-3 concepts of each system, conceptmath_unmastered), each error reason its labeller gave their wrong answers, with the count and one example (question and the model's answer: its first wrong step as quoted).$$;
COMMENT ON COLUMN conceptmath_error_examples.grader IS $$The grader whose wrong answers are counted.$$;
COMMENT ON COLUMN conceptmath_error_examples.labeler IS $$The labeller whose types they are.$$;
COMMENT ON COLUMN conceptmath_error_examples.system IS $$The system: element_en, element_zh, middle_en or middle_zh.$$;
COMMENT ON COLUMN conceptmath_error_examples.concept IS $$The unmastered concept, its level-3 path cate0/cate1/cate2.$$;
COMMENT ON COLUMN conceptmath_error_examples.rank IS $$Its rank among the system's level-3 concepts, 1 = lowest accuracy.$$;
COMMENT ON COLUMN conceptmath_error_examples.accuracy IS $$Its accuracy (Table 4's Concept Acc), a fraction in [0, 1].$$;
COMMENT ON COLUMN conceptmath_error_examples.n_problems IS $$Its graded problems.$$;
COMMENT ON COLUMN conceptmath_error_examples.error_type IS $$The error reason (Calculation Error, Knowledge Error; Other Error, mathprobe's).$$;
COMMENT ON COLUMN conceptmath_error_examples.n IS $$Its wrong answers with this reason.$$;
COMMENT ON COLUMN conceptmath_error_examples.item_id IS $$The example's item: the first by item id.$$;
COMMENT ON COLUMN conceptmath_error_examples.question IS $$The example's question.$$;
COMMENT ON COLUMN conceptmath_error_examples.answer IS $$The model's answer to it: the first wrong step as the labeller quoted it, else the last 300 characters of the answer.$$;