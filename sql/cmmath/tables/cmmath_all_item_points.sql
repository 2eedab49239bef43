CREATE OR REPLACE VIEW cmmath_all_item_points AS
FROM cmmath_item_points
UNION ALL BY NAME
FROM cmmath_imported_item_points WHERE item_id NOT IN (SELECT item_id FROM cmmath_items);

COMMENT ON VIEW cmmath_all_item_points IS $$CMMaTH: question -> leaf knowledge points of every problem the views know (cmmath_item_points, then cmmath_imported_item_points).$$;
COMMENT ON COLUMN cmmath_all_item_points.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_all_item_points.point IS $$the leaf's name$$;
COMMENT ON COLUMN cmmath_all_item_points.path IS $$root > ... > leaf$$;
COMMENT ON COLUMN cmmath_all_item_points.source IS $$knowledge_point | skill$$;
