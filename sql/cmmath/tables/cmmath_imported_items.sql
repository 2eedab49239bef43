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

COMMENT ON TABLE cmmath_imported_items IS $$CMMaTH: the labels of problems an imported result file defined itself (not in the local cmmath.json), as cmmath_items has them for cmmath.json's problems; a reload of the data leaves them.$$;
COMMENT ON COLUMN cmmath_imported_items.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_imported_items.answer_type IS $$choice | free_form, as in the file's record$$;
COMMENT ON COLUMN cmmath_imported_items.grade_id IS $$school grade 1..12$$;
COMMENT ON COLUMN cmmath_imported_items.grade_group IS $$1 elementary (grades 1-6), 2 junior (7-9), 3 senior (10-12)$$;
COMMENT ON COLUMN cmmath_imported_items.category IS $$visual subject: metadata.multimodal-category$$;
COMMENT ON COLUMN cmmath_imported_items.answer IS $$the reference answer exactly as in the file's record$$;
COMMENT ON COLUMN cmmath_imported_items.official_point IS $$the one knowledge point the authors' SSR counts it toward (as cmmath_items.official_point)$$;
