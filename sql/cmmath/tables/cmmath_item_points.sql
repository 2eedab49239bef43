-- Question -> its leaf knowledge points. `knowledge_point` is a nested path such as
-- 立体几何初步(基本立体图形(三视图(三视图与几何体转化问题,利用三视图求体积))); its leaves are the
-- points, and a question counts toward each of them (`skill` when knowledge_point is empty).
CREATE TABLE IF NOT EXISTS cmmath_item_points (
    item_id      VARCHAR NOT NULL,
    point        VARCHAR NOT NULL,             -- the leaf's name
    path         VARCHAR,                      -- root > ... > leaf
    source       VARCHAR,                      -- knowledge_point | skill
    PRIMARY KEY (item_id, point)
);

COMMENT ON TABLE cmmath_item_points IS $$CMMaTH: question -> its leaf knowledge points (the paper's definition: a question counts toward each leaf of its knowledge_point path, or its skill when that is empty).$$;
COMMENT ON COLUMN cmmath_item_points.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_item_points.point IS $$the leaf's name$$;
COMMENT ON COLUMN cmmath_item_points.path IS $$root > ... > leaf$$;
COMMENT ON COLUMN cmmath_item_points.source IS $$knowledge_point | skill: the field the leaf came from$$;
