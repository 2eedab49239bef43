-- CMMaTH for comparisons (mathprobe compare, the HTML report): layer 4, on the answers of
-- cmmath_answers (every answer of a run under each grader; undecided counts as not right).
--
-- cmmath_figure_units: what each answer contributes to each figure, so that every figure is
-- sum(num) / sum(den) over the run's answers (a bootstrap resamples questions). Summed over a
-- run they give the paper's views (cmmath_paper_accuracy, _category_accuracy, _grade_accuracy,
-- _point_accuracy, and cmmath_paper_ssr as the share of point cells above alpha) and the
-- authors' (cmmath_official_scores: a group's right / (count + 1), the +1 added by compare;
-- cmmath_official_ssr over the official_point cells) exactly, before the authors' rounding.
--   unit, item  the question (problem_id);
--   cell        the paper's: all; type:<answer_type>; grade:<grade_group>; subject:<visual
--               subject>; point:<leaf knowledge point> (a question counts toward each leaf);
--               the authors': official:<breakdown>:<group> (subject, grade_id, question_type, as
--               cmmath_official_answers assigns them, num = what their script counts right);
--               official_point:<point> (the one point their SSR counts the question toward).
CREATE OR REPLACE VIEW cmmath_figure_units AS
SELECT run_id, grader, item_id AS unit, item_id AS item,
       unnest(['all', 'type:' || answer_type, 'grade:' || grade_group,
               'subject:' || category]) AS cell,
       coalesce(correct, false)::DOUBLE AS num, 1.0::DOUBLE AS den
FROM cmmath_answers
UNION ALL
SELECT a.run_id, a.grader, a.item_id, a.item_id, 'point:' || p.point,
       coalesce(a.correct, false)::DOUBLE, 1.0
FROM cmmath_answers a
JOIN cmmath_item_points p ON p.item_id = a.item_id
UNION ALL
SELECT run_id, grader, item_id, item_id, 'official:' || breakdown || ':' || key,
       counted_right::DOUBLE, 1.0
FROM cmmath_official_answers
UNION ALL
SELECT run_id, grader, item_id, item_id, 'official_point:' || official_point,
       coalesce(correct, false)::DOUBLE, 1.0
FROM cmmath_answers
WHERE official_point IS NOT NULL;
