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
-- Added for the authors' figures (stores made before them get the columns here).
ALTER TABLE cmmath_items ADD COLUMN IF NOT EXISTS answer VARCHAR;
ALTER TABLE cmmath_items ADD COLUMN IF NOT EXISTS official_point VARCHAR;

COMMENT ON TABLE cmmath_items IS 'CMMaTH: one row per question of cmmath.json with the labels its figures group by (loaded from the data directory).';
COMMENT ON COLUMN cmmath_items.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_items.answer_type IS 'choice | free_form, as in cmmath.json';
COMMENT ON COLUMN cmmath_items.grade_id IS 'school grade 1..12';
COMMENT ON COLUMN cmmath_items.grade_group IS '1 elementary (grades 1-6), 2 junior (7-9), 3 senior (10-12)';
COMMENT ON COLUMN cmmath_items.category IS 'visual subject: metadata.multimodal-category (Bar Chart, Plane Geometry, ...)';
COMMENT ON COLUMN cmmath_items.answer IS 'the reference answer exactly as in cmmath.json (trailing newline included): the authors split choice questions into single ("A\n".."D\n") and multi by it';
COMMENT ON COLUMN cmmath_items.official_point IS 'the one knowledge point the authors'' SSR counts the question toward (their bracket walk: the parent of the innermost point; '''' when none); NULL where their walk skips the question';

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

COMMENT ON TABLE cmmath_item_points IS 'CMMaTH: question -> its leaf knowledge points (the paper''s definition: a question counts toward each leaf of its knowledge_point path, or its skill when that is empty).';
COMMENT ON COLUMN cmmath_item_points.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_item_points.point IS 'the leaf''s name';
COMMENT ON COLUMN cmmath_item_points.path IS 'root > ... > leaf';
COMMENT ON COLUMN cmmath_item_points.source IS 'knowledge_point | skill: the field the leaf came from';
