-- WE-MATH (Qiao et al. 2024): the reference tables its views join against, loaded from the
-- data directory (mathprobe/benchmarks/wemath, reference_tables).

-- WE-MATH knowledge structure (67 leaves).
CREATE TABLE IF NOT EXISTS wemath_knowledge (
    leaf         VARCHAR PRIMARY KEY,
    root0        VARCHAR,
    root1        VARCHAR,
    root2        VARCHAR,
    root3        VARCHAR,
    root4        VARCHAR,
    full_node    VARCHAR
);
