-- WE-MATH (Qiao et al. 2024): the reference tables its views join against, loaded from the
-- data directory (tasks/benchmarks/wemath, reference_tables).

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

-- The figures of Tables 1 and 2 stored per run (by the store when a run's grading, judging or
-- import finishes: tasks/store/run_data.py), so reading them for hundreds of runs reads rows
-- instead of recomputing every run. Rows of exactly the live macros' output; the views use them
-- only while the run's data version is the one they were computed at (run_data.figures_version).
CREATE TABLE IF NOT EXISTS wemath_four_dimensional_stored (
    run_id VARCHAR, grader VARCHAR, rule VARCHAR,
    n BIGINT, ik BIGINT, ig BIGINT, cm BIGINT, rm BIGINT,
    ik_rate DOUBLE, ig_rate DOUBLE, cm_rate DOUBLE, rm_rate DOUBLE, score DOUBLE
);
CREATE TABLE IF NOT EXISTS wemath_step_accuracy_stored (
    run_id VARCHAR, grader VARCHAR, s1 DOUBLE, s2 DOUBLE, s3 DOUBLE
);
CREATE TABLE IF NOT EXISTS wemath_concept_accuracy_stored (
    run_id VARCHAR, grader VARCHAR, concept VARCHAR, n BIGINT, correct BIGINT, accuracy DOUBLE
);
