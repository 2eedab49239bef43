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
-- One pass over the answers (cmmath_official_groups_of): each answer's cells in a list, unnested
-- with the num of each (the paper's cells and official_point count it right as graded, the
-- authors' groups only where their dicts name the group), so the answers are computed once;
-- for a set of runs (sql/core/current/responses_of.sql: run_data or live_run_spans).
CREATE OR REPLACE MACRO cmmath_figure_units_of(runs) AS TABLE
WITH answer_cells AS (
    SELECT o.run_id, o.grader, o.item_id,
           ['official:subject:' || o.subject_key, 'official:grade_id:' || o.grade_key,
            'official:question_type:' || o.type_key,
            'all', 'type:' || o.answer_type, 'grade:' || o.grade_group, 'subject:' || o.category]
           || coalesce(p.cells, [])
           || CASE WHEN o.official_point IS NOT NULL
                   THEN ['official_point:' || o.official_point] ELSE [] END        AS cells,
           o.is_right, [o.is_right AND o.subject_known, o.is_right AND o.grade_known,
                        o.is_right AND o.type_known]                              AS official_nums
    FROM cmmath_official_groups_of(runs) o
    LEFT JOIN (SELECT item_id, list('point:' || point) AS cells
               FROM cmmath_all_item_points GROUP BY item_id) p ON p.item_id = o.item_id
)
SELECT run_id, grader, item_id AS unit, item_id AS item,
       unnest(cells)                                                               AS cell,
       unnest(official_nums::DOUBLE[]
              || list_resize([]::DOUBLE[], len(cells) - 3, is_right::DOUBLE))     AS num,
       1.0::DOUBLE                                                                 AS den
FROM answer_cells;
-- Stored per run (mathprobe/store/stored_sql.py): a run's 20,000 rows read, not rebuilt from its
-- answers, by compare and the HTML report.
-- @stored cmmath_figure_units

COMMENT ON VIEW cmmath_figure_units IS $$Layer 4 (compare, HTML report): what each answer contributes to each CMMaTH figure, the paper's and the authors', so a bootstrap resamples questions; summed over a run they give the figure views exactly (the authors' before their rounding and +1).$$;
COMMENT ON COLUMN cmmath_figure_units.grader IS $$The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe's score).$$;
COMMENT ON COLUMN cmmath_figure_units.unit IS $$The resampled unit: the question.$$;
COMMENT ON COLUMN cmmath_figure_units.item IS $$The paired unit of a McNemar test: the question.$$;
COMMENT ON COLUMN cmmath_figure_units.cell IS $$The figure's cell: all, type:<answer type>, grade:<grade group>, subject:<visual subject>, point:<leaf knowledge point> (the paper's); official:<breakdown>:<group>, official_point:<point> (the authors').$$;
