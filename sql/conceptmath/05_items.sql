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
