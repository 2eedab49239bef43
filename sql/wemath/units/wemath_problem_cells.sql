-- What one complete problem, in `dimension` under `rule`, adds to each figure of Table 2: a
-- list of {cell, num, den} (wemath_figure_units's problem cells; the sampled figures' per
-- sample and on the majority answers, wemath_sampled_figure_units, prefixed). Cells: ik, ig
-- (the same under both rules: the strict row's only), cm.<rule>, rm.<rule> (RM / N),
-- rm_rate.<rule> (RM / (RM + CM): RM + CM are the problems whose composite is right),
-- score.<rule> (alpha 0, beta 0.5: IG counts half, CM whole).
CREATE OR REPLACE MACRO wemath_problem_cells(dimension, rule) AS (
    CASE WHEN rule = 'strict'
         THEN [{'cell': 'ik', 'num': (dimension = 'IK')::DOUBLE, 'den': 1.0::DOUBLE},
               {'cell': 'ig', 'num': (dimension = 'IG')::DOUBLE, 'den': 1.0::DOUBLE}]
         ELSE [] END
    || [{'cell': 'cm.' || rule, 'num': (dimension = 'CM')::DOUBLE, 'den': 1.0::DOUBLE},
        {'cell': 'rm.' || rule, 'num': (dimension = 'RM')::DOUBLE, 'den': 1.0::DOUBLE},
        {'cell': 'rm_rate.' || rule, 'num': (dimension = 'RM')::DOUBLE,
         'den': (dimension IN ('CM', 'RM'))::DOUBLE},
        {'cell': 'score.' || rule,
         'num': 0.5 * (dimension = 'IG')::DOUBLE + (dimension = 'CM')::DOUBLE,
         'den': 1.0::DOUBLE}]
);

COMMENT ON MACRO wemath_problem_cells IS $$What a complete WE-MATH problem in a dimension under a rule adds to each Table 2 cell: a list of {cell, num, den} (ik, ig, cm.<rule>, rm.<rule>, rm_rate.<rule>, score.<rule>).$$;
