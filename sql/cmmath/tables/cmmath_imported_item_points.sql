CREATE TABLE IF NOT EXISTS cmmath_imported_item_points (
    item_id      VARCHAR NOT NULL,
    point        VARCHAR NOT NULL,
    path         VARCHAR,
    source       VARCHAR,
    PRIMARY KEY (item_id, point)
);

COMMENT ON TABLE cmmath_imported_item_points IS $$CMMaTH: question -> leaf knowledge points of problems an imported result file defined itself (as cmmath_item_points).$$;
COMMENT ON COLUMN cmmath_imported_item_points.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_imported_item_points.point IS $$the leaf's name$$;
COMMENT ON COLUMN cmmath_imported_item_points.path IS $$root > ... > leaf$$;
COMMENT ON COLUMN cmmath_imported_item_points.source IS $$knowledge_point | skill$$;
