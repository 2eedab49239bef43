-- ConceptMath for comparisons (mathprobe compare, the HTML report): layer 4.
--
-- conceptmath_figure_units: what each problem contributes to each figure, so that every figure
-- is sum(num) / sum(den) over the run's problems (a bootstrap resamples problems). Summed over a
-- run they give conceptmath_run_accuracy, conceptmath_accuracy, conceptmath_concept_accuracy,
-- contamination_rouge, contamination_mink and conceptmath_classification exactly.
--   unit, item  the problem (item id);
--   cell        all; system:<system>; L1:<system>:<cate0>, L2:<system>:<cate0/cate1>,
--               L3:<system>:<cate0/cate1/cate2> (concept paths as in conceptmath_concept_accuracy);
--               probe runs (grader NULL: no grader decides them): rouge:<system> (Rouge-L F),
--               mink:<system> (MIN-K% as a mean log-probability), mink_prob:<system>,
--               mrr:<system> (reciprocal rank), top1:<system>.
-- For a set of runs (sql/core/current/responses_of.sql: `runs` names run_data or
-- live_run_spans; a run whose span is empty there is stored, not live).
CREATE OR REPLACE MACRO conceptmath_figure_units_of(runs) AS TABLE
WITH graded AS (
    SELECT run_id, grader, item_id, system, correct::DOUBLE AS num,
           cate0 AS c1, cate0 || '/' || cate1 AS c2, cate0 || '/' || cate1 || '/' || cate2 AS c3
    FROM conceptmath_item_verdicts_of(runs)
)
SELECT run_id, grader, item_id AS unit, item_id AS item,
       unnest(['all', 'system:' || system, 'L1:' || system || ':' || c1,
               'L2:' || system || ':' || c2, 'L3:' || system || ':' || c3]) AS cell,
       num, 1.0::DOUBLE AS den
FROM graded
UNION ALL
SELECT s.run_id, NULL, s.item_id, s.item_id,                -- a rank counts twice: mrr, top1
       unnest(CASE s.probe WHEN 'rouge_l' THEN ['rouge:' || p.system]
                           ELSE ['mrr:' || p.system, 'top1:' || p.system] END),
       unnest(CASE s.probe WHEN 'rouge_l' THEN [s.score]
                           ELSE [s.score, (s.score = 1.0)::DOUBLE] END), 1.0
FROM probe_scores s
JOIN query_table(runs) d ON d.run_id = s.run_id AND d.first_response_id <= d.last_response_id
JOIN conceptmath_probe_items p ON p.run_id = s.run_id AND p.item_id = s.item_id
WHERE s.probe IN ('rouge_l', 'reciprocal_rank')
UNION ALL
SELECT m.run_id, NULL, m.item_id, m.item_id,
       unnest(['mink:' || p.system, 'mink_prob:' || p.system]),
       unnest([m.min_k, m.min_k_prob]), 1.0
FROM conceptmath_mink_items_of(runs) m
JOIN conceptmath_probe_items p ON p.run_id = m.run_id AND p.item_id = m.item_id;
-- Stored per run (mathprobe/store/stored_sql.py): a run's 40,000 rows read, not rebuilt from its
-- verdicts, by compare and the HTML report.
-- @stored conceptmath_figure_units

COMMENT ON VIEW conceptmath_figure_units IS $$Layer 4 (compare, HTML report): what each problem contributes to each ConceptMath figure, so a bootstrap resamples problems; summed over a run they give the figure views exactly.$$;
COMMENT ON COLUMN conceptmath_figure_units.grader IS $$The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe's score).$$;
COMMENT ON COLUMN conceptmath_figure_units.unit IS $$The resampled unit: the problem.$$;
COMMENT ON COLUMN conceptmath_figure_units.item IS $$The paired unit of a McNemar test: the problem.$$;
COMMENT ON COLUMN conceptmath_figure_units.cell IS $$The figure's cell: all, system:<system>, L1/L2/L3:<system>:<concept path>; probe runs: rouge, mink, mink_prob, mrr, top1 :<system>.$$;
