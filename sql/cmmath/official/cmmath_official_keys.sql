-- The groups their script reports, in its order (its dicts' keys): every group is reported,
-- an empty one as 0.0.
CREATE OR REPLACE VIEW cmmath_official_keys AS
SELECT * FROM (VALUES
    ('subject', 'Flow Chart', 1), ('subject', 'Bar Chart', 2), ('subject', 'Scatter Plot', 3),
    ('subject', 'Line Plot', 4), ('subject', 'Fan Chart', 5), ('subject', 'LiDAR Chart', 6),
    ('subject', 'Visual-Table', 7), ('subject', 'Three View', 8), ('subject', 'Folded Image', 9),
    ('subject', 'Analytic Geometry', 10), ('subject', 'Solid Geometry', 11),
    ('subject', 'Plane Geometry', 12), ('subject', 'Venn diagram', 13),
    ('subject', 'Abtract Analogy diagram', 14), ('subject', 'UnKnown', 15),
    ('grade_id', '1', 1), ('grade_id', '2', 2), ('grade_id', '3', 3), ('grade_id', '4', 4),
    ('grade_id', '5', 5), ('grade_id', '6', 6), ('grade_id', '7', 7), ('grade_id', '8', 8),
    ('grade_id', '9', 9), ('grade_id', '10', 10), ('grade_id', '11', 11),
    ('grade_id', '12', 12), ('grade_id', 'UnKnown', 13),
    ('question_type', 'choice', 1), ('question_type', 'free_form', 2),
    ('question_type', 'single_choice', 3), ('question_type', 'multi_choice', 4),
    ('question_type', 'UnKnown', 5)
) AS k(breakdown, key, position);

COMMENT ON VIEW cmmath_official_keys IS $$CMMaTH: the groups the authors' statics_acc.py reports per breakdown, in its order (their dicts' keys; 'Abtract' spelled as theirs and the data's).$$;
COMMENT ON COLUMN cmmath_official_keys.breakdown IS $$subject | grade_id | question_type$$;
COMMENT ON COLUMN cmmath_official_keys.key IS $$the group$$;
COMMENT ON COLUMN cmmath_official_keys.position IS $$its place in their report$$;
