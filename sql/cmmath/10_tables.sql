-- CMMaTH (Li et al. 2024): the reference tables its views join against, loaded from
-- cmmath.json (tasks/benchmarks/cmmath, reference_tables).

-- One row per question: the labels the figures group by (reference_tables).
CREATE TABLE IF NOT EXISTS cmmath_items (
    item_id      VARCHAR PRIMARY KEY,          -- problem_id
    answer_type  VARCHAR NOT NULL,             -- choice | free_form
    grade_id     INTEGER,                      -- 1..12
    grade_group  INTEGER,                      -- 1 elementary, 2 junior, 3 senior
    category     VARCHAR                       -- metadata.multimodal-category (visual subject)
);

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
