-- The benchmark rows as loaded (and rows an imported result file defines itself).
CREATE TABLE IF NOT EXISTS items (
    benchmark    VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    group_id     VARCHAR,                   -- WE-MATH problem ID, ConceptMath system, ...
    part         VARCHAR,                   -- WE-MATH key (2steps_1 .. 3steps_multi)
    concept      VARCHAR,                   -- leaf concept, or ';'-joined leaves, or concept path
    question     VARCHAR,
    gold         VARCHAR,
    payload      JSON,                      -- the source row as loaded
    PRIMARY KEY (benchmark, item_id)
);

COMMENT ON TABLE items IS $$The benchmark rows as loaded from the data directory, one per question; and rows a result file defines itself for problems the local data lacks (mathprobe import, e.g. a CMMaTH authors' result file), which a reload of the data leaves in place.$$;
COMMENT ON COLUMN items.benchmark IS $$The benchmark the item belongs to.$$;
COMMENT ON COLUMN items.item_id IS $$The item's id: WE-MATH {ID}/{key}, ConceptMath {system}/{idx}, CMMaTH problem_id.$$;
COMMENT ON COLUMN items.group_id IS $$Its group: the WE-MATH problem ID, the ConceptMath system, the CMMaTH grade group.$$;
COMMENT ON COLUMN items.part IS $$Its part of a group: the WE-MATH key (2steps_1 .. 3steps_multi), the CMMaTH answer type.$$;
COMMENT ON COLUMN items.concept IS $$Its concept: a WE-MATH leaf (';'-joined for composite questions), a ConceptMath path cate0/cate1/cate2, a CMMaTH knowledge point path.$$;
COMMENT ON COLUMN items.question IS $$The question text.$$;
COMMENT ON COLUMN items.gold IS $$The reference answer, as text.$$;
COMMENT ON COLUMN items.payload IS $$The source row as loaded (JSON): every field of the authors' file.$$;
