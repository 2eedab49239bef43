-- Python's round(x, 1): the double's exact value to one decimal, ties to even (6.25 -> 6.2).
-- DuckDB's round() rounds half away from zero after scaling (6.25 -> 6.3); fmt's formatting
-- rounds the exact value like Python (checked for every right/(count + 1) with count <= 2000).
CREATE OR REPLACE MACRO python_round_1(x) AS CAST(format('{:.1f}', x) AS DOUBLE);
