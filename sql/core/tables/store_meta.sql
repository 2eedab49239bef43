-- Facts about the store itself, e.g. which version of the SQL layer its views come from.
CREATE TABLE IF NOT EXISTS store_meta (
    key    VARCHAR PRIMARY KEY,
    value  VARCHAR
);

COMMENT ON TABLE store_meta IS $$Facts about the store file itself: sql_layer = content hash of the SQL (tables, views, macros) last applied, so a read-only open (mathprobe report on a read-only or full disk) can tell whether its views are current; spooled:<batch id> = a batch of answers spooled when the store could not be written, stored since (so a spool stored again after a kill adds nothing).$$;
COMMENT ON COLUMN store_meta.key IS $$What the fact is about, e.g. sql_layer, spooled:<batch id>.$$;
COMMENT ON COLUMN store_meta.value IS $$The fact, e.g. the SHA-256 of the SQL files applied.$$;
