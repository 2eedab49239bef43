-- ConceptMath (Wu et al. 2024). Layer 2 (sql/conceptmath/verdicts/): verdicts joined to the
-- concept hierarchy; layer 3 (figures/, probes/): the paper's figures, each written as the
-- paper defines it; layer 4 (units/): what each problem contributes to them, for compare.
--
-- Items: conceptmath_items (tables/conceptmath_items.sql) holds each problem's system (element_en, element_zh,
-- middle_en, middle_zh) and its cate0, cate1, cate2 (levels 1..3 of the hierarchy, from the
-- data row as `items.payload` keeps it). Concept names are the authors'
-- paths 'cate0', 'cate0/cate1', 'cate0/cate1/cate2', built from the three fields (a cate2 may
-- itself hold '/', e.g. 'mode/mean/median/range', so a path is never split).

-- One row per graded problem, with its system and its place in the hierarchy, for a set of
-- runs (sql/core/current/responses_of.sql: `runs` names run_data or live_run_spans).
CREATE OR REPLACE MACRO conceptmath_item_verdicts_of(runs) AS TABLE
SELECT iv.run_id, iv.grader, iv.item_id, i.system, i.cate0, i.cate1, i.cate2, iv.correct
FROM item_verdicts_of(runs) iv
JOIN conceptmath_items i ON i.item_id = iv.item_id
WHERE iv.benchmark = 'conceptmath';

CREATE OR REPLACE VIEW conceptmath_item_verdicts AS
FROM conceptmath_item_verdicts_of('run_data');

COMMENT ON VIEW conceptmath_item_verdicts IS $$ConceptMath layer 2: every graded problem with its system and its place in the concept hierarchy.$$;
COMMENT ON COLUMN conceptmath_item_verdicts.item_id IS $$The problem: {system}/{idx}.$$;
COMMENT ON COLUMN conceptmath_item_verdicts.system IS $$element_en, element_zh, middle_en or middle_zh.$$;
COMMENT ON COLUMN conceptmath_item_verdicts.cate0 IS $$Level 1 of its concept path.$$;
COMMENT ON COLUMN conceptmath_item_verdicts.cate1 IS $$Level 2.$$;
COMMENT ON COLUMN conceptmath_item_verdicts.cate2 IS $$Level 3 (the leaf).$$;
COMMENT ON COLUMN conceptmath_item_verdicts.correct IS $$Whether the answer is right.$$;
