-- The lowest concepts of a run ("unmastered", paper Sec. 4): conceptmath_lowest among the
-- concepts with at least conceptmath_unmastered_min_n() graded problems.
CREATE OR REPLACE VIEW conceptmath_unmastered AS
FROM conceptmath_lowest(conceptmath_unmastered_min_n());

COMMENT ON VIEW conceptmath_unmastered IS $$The lowest concepts of a run (unmastered, paper Sec. 4), ranked within system and level, among the concepts with at least conceptmath_unmastered_min_n() graded problems (5).$$;
COMMENT ON COLUMN conceptmath_unmastered.system IS $$The system.$$;
COMMENT ON COLUMN conceptmath_unmastered.level IS $$1, 2 or 3.$$;
COMMENT ON COLUMN conceptmath_unmastered.concept IS $$The concept path.$$;
COMMENT ON COLUMN conceptmath_unmastered.n IS $$Graded problems under it.$$;
COMMENT ON COLUMN conceptmath_unmastered.accuracy IS $$Its accuracy, a fraction.$$;
COMMENT ON COLUMN conceptmath_unmastered.rank IS $$1 = the lowest accuracy; ties: more problems first, then by name.$$;
