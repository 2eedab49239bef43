-- WE-MATH's sampled figures for comparisons (runs asked --samples K: docs/sampling.md), the
-- problem the resampled unit as in wemath_figure_units (a problem's questions, and each
-- question's samples, travel together):
--   the core's sampled cells (sampled_figure_units: mean accuracy over samples, each sample's,
--   pass@k, maj@k, ...) of the run's questions, regrouped by problem;
--   Table 2 per sample and on the majority answers: <answers>:<cell> for each answers of
--   wemath_sample_dimensions (s0, s1, ..., maj) and each cell of wemath_problem_cells (ik, ig,
--   cm.<rule>, rm.<rule>, rm_rate.<rule>, score.<rule>).
CREATE OR REPLACE MACRO wemath_sampled_figure_units_of(runs) AS TABLE
SELECT u.run_id, u.grader, i.group_id AS unit, u.item, u.cell, u.num, u.den
FROM sampled_figure_units_of(runs) u
JOIN runs r ON r.run_id = u.run_id AND r.benchmark = 'wemath'
JOIN items i ON i.benchmark = 'wemath' AND i.item_id = u.item
UNION ALL
SELECT run_id, grader, problem_id, problem_id, answers || ':' || cell, num, den
FROM (SELECT run_id, grader, answers, problem_id,
             unnest(wemath_problem_cells(dimension, rule), recursive := true)
      FROM wemath_sample_dimensions_of(runs));

CREATE OR REPLACE VIEW wemath_sampled_figure_units AS
FROM wemath_sampled_figure_units_of('run_data');

COMMENT ON VIEW wemath_sampled_figure_units IS $$WE-MATH's sampled figures' units (runs asked --samples K > 1): the core's (mean accuracy over samples, pass@k, maj@k, ...) with the problem as the resampled unit, and Table 2 per sample (s<k>:<cell>) and on the majority answers (maj:<cell>).$$;
COMMENT ON COLUMN wemath_sampled_figure_units.unit IS $$The resampled unit: the problem (ID).$$;
COMMENT ON COLUMN wemath_sampled_figure_units.item IS $$The paired unit of a McNemar test: the question for question figures, the problem for problem figures.$$;
COMMENT ON COLUMN wemath_sampled_figure_units.cell IS $$The figure's cell: the core's (sampled:mean, sample:<s>, pass@<k>, maj@<k>, maj_tie@<k>, sampled:disagree) and <answers>:<cell> with answers s<k> or maj and cell one of Table 2's (ik, ig, cm.<rule>, rm.<rule>, rm_rate.<rule>, score.<rule>).$$;
