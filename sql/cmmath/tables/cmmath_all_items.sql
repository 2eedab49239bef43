-- Every problem's labels and points: cmmath.json's, then those only an imported file defines.
CREATE OR REPLACE VIEW cmmath_all_items AS
FROM cmmath_items
UNION ALL BY NAME
FROM cmmath_imported_items WHERE item_id NOT IN (SELECT item_id FROM cmmath_items);

COMMENT ON VIEW cmmath_all_items IS $$CMMaTH: the labels of every problem the views know: cmmath.json's (cmmath_items), then those only an imported result file defines (cmmath_imported_items).$$;
COMMENT ON COLUMN cmmath_all_items.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_all_items.answer_type IS $$choice | free_form$$;
COMMENT ON COLUMN cmmath_all_items.grade_id IS $$school grade 1..12$$;
COMMENT ON COLUMN cmmath_all_items.grade_group IS $$1 elementary, 2 junior, 3 senior$$;
COMMENT ON COLUMN cmmath_all_items.category IS $$visual subject$$;
COMMENT ON COLUMN cmmath_all_items.answer IS $$the reference answer as written (trailing newline included)$$;
COMMENT ON COLUMN cmmath_all_items.official_point IS $$the authors' one SSR point$$;
