-- The 95% Wilson score interval of k right answers of n independent problems, as
-- mathprobe/reports/intervals.py `wilson` computes it (docs/intervals.md): never zero width for
-- n > 0 (0 of n gives [0, z^2 / (n + z^2)]), inside [0, 1], containing k / n. A STRUCT
-- {low, high} of fractions; NULL where n is 0 or NULL.
CREATE OR REPLACE MACRO wilson_interval(k, n) AS (
    CASE WHEN coalesce(n, 0) > 0 THEN {
        'low':  least(k / n, greatest(0.0,
                 (k + 3.841458820694124 / 2) / (n + 3.841458820694124)
                 - 1.959963984540054 * sqrt(k * (n - k) / n + 3.841458820694124 / 4)
                   / (n + 3.841458820694124))),
        'high': greatest(k / n, least(1.0,
                 (k + 3.841458820694124 / 2) / (n + 3.841458820694124)
                 + 1.959963984540054 * sqrt(k * (n - k) / n + 3.841458820694124 / 4)
                   / (n + 3.841458820694124)))}
    END
);

COMMENT ON MACRO wilson_interval IS $$The 95% Wilson score interval of k right of n: {low, high}, fractions (NULL for n = 0).$$;