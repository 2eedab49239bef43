-- ConceptMath (Wu et al. 2024): the reference table its views join against, loaded from the data
-- directory (mathprobe/benchmarks/conceptmath, reference_tables).

-- One row per problem: its system and its place in the concept hierarchy, as columns, so a view
-- for one run joins labels instead of reading each problem's JSON payload (`items`) again.
CREATE TABLE IF NOT EXISTS conceptmath_items (
    item_id  VARCHAR PRIMARY KEY,
    system   VARCHAR NOT NULL,             -- element_en | element_zh | middle_en | middle_zh
    cate0    VARCHAR,                      -- level 1 of the hierarchy
    cate1    VARCHAR,                      -- level 2
    cate2    VARCHAR                       -- level 3 (may itself hold '/')
);

-- A store made before this table: its problems' labels from the payloads its views read until
-- then (once: afterwards the loader replaces the table whenever the data files change).
INSERT INTO conceptmath_items
SELECT item_id, group_id, cates[1], cates[2], cates[3]
FROM (SELECT item_id, group_id, json_extract_string(payload, ['cate0', 'cate1', 'cate2']) AS cates
      FROM items WHERE benchmark = 'conceptmath')
WHERE NOT EXISTS (SELECT 1 FROM conceptmath_items);

COMMENT ON TABLE conceptmath_items IS $$ConceptMath: one row per problem of the four systems with the labels its figures group by (loaded from the data directory; a store made before the table: from items.payload).$$;
COMMENT ON COLUMN conceptmath_items.item_id IS $$The problem (items.item_id).$$;
COMMENT ON COLUMN conceptmath_items.system IS $$element_en | element_zh | middle_en | middle_zh (items.group_id)$$;
COMMENT ON COLUMN conceptmath_items.cate0 IS $$Level 1 of its concept path (the data row's cate0).$$;
COMMENT ON COLUMN conceptmath_items.cate1 IS $$Level 2 (cate1).$$;
COMMENT ON COLUMN conceptmath_items.cate2 IS $$Level 3 (cate2; may itself hold '/').$$;
