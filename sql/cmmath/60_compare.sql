-- CMMaTH for comparisons (mathprobe compare, the HTML report): layer 4, on today's figures
-- (cmmath_accuracy, cmmath_category_accuracy, cmmath_grade_accuracy, cmmath_point_accuracy,
-- cmmath_ssr: the paper's definitions).
--
-- cmmath_figure_units: what each question contributes to each figure, so that every accuracy is
-- sum(num) / sum(den) over the run's questions and SSR@alpha is the share of point cells whose
-- sum(num) / sum(den) is above alpha (a bootstrap resamples questions). Summed over a run they
-- give those views exactly.
--   unit, item  the question (problem_id);
--   cell        all; type:<answer_type>; grade:<grade_group>; subject:<visual subject>;
--               point:<knowledge point> (a question counts toward each of its leaf points).
CREATE OR REPLACE VIEW cmmath_figure_units AS
SELECT run_id, grader, item_id AS unit, item_id AS item,
       unnest(['all', 'type:' || answer_type, 'grade:' || grade_group,
               'subject:' || category]) AS cell,
       correct::DOUBLE AS num, 1.0::DOUBLE AS den
FROM cmmath_item_verdicts
UNION ALL
SELECT v.run_id, v.grader, v.item_id, v.item_id, 'point:' || p.point, v.correct::DOUBLE, 1.0
FROM cmmath_item_verdicts v
JOIN cmmath_item_points p ON p.item_id = v.item_id;
