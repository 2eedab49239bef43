-- CMMaTH (Li et al. 2024): the reference tables its views join against, loaded from
-- cmmath.json (mathprobe/benchmarks/cmmath, reference_tables).

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

-- Problems a result file defines itself (mathprobe import of an authors' result file whose
-- problems the local cmmath.json sample lacks): the same labels and points, from the file's
-- records. Kept apart from the two tables above, which a reload of cmmath.json replaces whole.
CREATE TABLE IF NOT EXISTS cmmath_imported_items (
    item_id      VARCHAR PRIMARY KEY,
    answer_type  VARCHAR NOT NULL,
    grade_id     INTEGER,
    grade_group  INTEGER,
    category     VARCHAR,
    answer       VARCHAR,
    official_point VARCHAR
);
COMMENT ON TABLE cmmath_imported_items IS 'CMMaTH: the labels of problems an imported result file defined itself (not in the local cmmath.json), as cmmath_items has them for cmmath.json''s problems; a reload of the data leaves them.';
COMMENT ON COLUMN cmmath_imported_items.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_imported_items.answer_type IS 'choice | free_form, as in the file''s record';
COMMENT ON COLUMN cmmath_imported_items.grade_id IS 'school grade 1..12';
COMMENT ON COLUMN cmmath_imported_items.grade_group IS '1 elementary (grades 1-6), 2 junior (7-9), 3 senior (10-12)';
COMMENT ON COLUMN cmmath_imported_items.category IS 'visual subject: metadata.multimodal-category';
COMMENT ON COLUMN cmmath_imported_items.answer IS 'the reference answer exactly as in the file''s record';
COMMENT ON COLUMN cmmath_imported_items.official_point IS 'the one knowledge point the authors'' SSR counts it toward (as cmmath_items.official_point)';

CREATE TABLE IF NOT EXISTS cmmath_imported_item_points (
    item_id      VARCHAR NOT NULL,
    point        VARCHAR NOT NULL,
    path         VARCHAR,
    source       VARCHAR,
    PRIMARY KEY (item_id, point)
);
COMMENT ON TABLE cmmath_imported_item_points IS 'CMMaTH: question -> leaf knowledge points of problems an imported result file defined itself (as cmmath_item_points).';
COMMENT ON COLUMN cmmath_imported_item_points.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_imported_item_points.point IS 'the leaf''s name';
COMMENT ON COLUMN cmmath_imported_item_points.path IS 'root > ... > leaf';
COMMENT ON COLUMN cmmath_imported_item_points.source IS 'knowledge_point | skill';

-- Every problem's labels and points: cmmath.json's, then those only an imported file defines.
CREATE OR REPLACE VIEW cmmath_all_items AS
FROM cmmath_items
UNION ALL BY NAME
FROM cmmath_imported_items WHERE item_id NOT IN (SELECT item_id FROM cmmath_items);

COMMENT ON VIEW cmmath_all_items IS 'CMMaTH: the labels of every problem the views know: cmmath.json''s (cmmath_items), then those only an imported result file defines (cmmath_imported_items).';
COMMENT ON COLUMN cmmath_all_items.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_all_items.answer_type IS 'choice | free_form';
COMMENT ON COLUMN cmmath_all_items.grade_id IS 'school grade 1..12';
COMMENT ON COLUMN cmmath_all_items.grade_group IS '1 elementary, 2 junior, 3 senior';
COMMENT ON COLUMN cmmath_all_items.category IS 'visual subject';
COMMENT ON COLUMN cmmath_all_items.answer IS 'the reference answer as written (trailing newline included)';
COMMENT ON COLUMN cmmath_all_items.official_point IS 'the authors'' one SSR point';

CREATE OR REPLACE VIEW cmmath_all_item_points AS
FROM cmmath_item_points
UNION ALL BY NAME
FROM cmmath_imported_item_points WHERE item_id NOT IN (SELECT item_id FROM cmmath_items);

COMMENT ON VIEW cmmath_all_item_points IS 'CMMaTH: question -> leaf knowledge points of every problem the views know (cmmath_item_points, then cmmath_imported_item_points).';
COMMENT ON COLUMN cmmath_all_item_points.item_id IS 'problem_id';
COMMENT ON COLUMN cmmath_all_item_points.point IS 'the leaf''s name';
COMMENT ON COLUMN cmmath_all_item_points.path IS 'root > ... > leaf';
COMMENT ON COLUMN cmmath_all_item_points.source IS 'knowledge_point | skill';
