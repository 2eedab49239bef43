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

COMMENT ON TABLE cmmath_items IS $$CMMaTH: one row per question of cmmath.json with the labels its figures group by (loaded from the data directory).$$;
COMMENT ON COLUMN cmmath_items.item_id IS $$problem_id$$;
COMMENT ON COLUMN cmmath_items.answer_type IS $$choice | free_form, as in cmmath.json$$;
COMMENT ON COLUMN cmmath_items.grade_id IS $$school grade 1..12$$;
COMMENT ON COLUMN cmmath_items.grade_group IS $$1 elementary (grades 1-6), 2 junior (7-9), 3 senior (10-12)$$;
COMMENT ON COLUMN cmmath_items.category IS $$visual subject: metadata.multimodal-category (Bar Chart, Plane Geometry, ...)$$;
COMMENT ON COLUMN cmmath_items.answer IS $$the reference answer exactly as in cmmath.json (trailing newline included): the authors split choice questions into single ("A\n".."D\n") and multi by it$$;
COMMENT ON COLUMN cmmath_items.official_point IS $$the one knowledge point the authors' SSR counts the question toward (their bracket walk: the parent of the innermost point; '' when none); NULL where their walk skips the question$$;
