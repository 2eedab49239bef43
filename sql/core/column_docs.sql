-- The columns that mean the same wherever they appear, described once. The store gives every
-- column of its tables and views that has no COMMENT ON of its own the description of its name
-- here (mathprobe/store/sql.py, write_comments); a column whose meaning differs in one place
-- (a grader that may be NULL, a run_id that names a chosen run) says so in its own file.
CREATE OR REPLACE MACRO column_docs() AS TABLE
SELECT * FROM (VALUES
    ('run_id',    'The run (runs.run_id).'),
    ('benchmark', 'The run''s benchmark.'),
    ('sample',    'Which of the item''s repeated samples (--samples K: 0 .. K-1; 0 for a run of one sample).'),
    ('grader',    'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.'),
    ('num',       'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).'),
    ('den',       'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).')
) AS d(column_name, comment);
