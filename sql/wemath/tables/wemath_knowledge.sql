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

COMMENT ON TABLE wemath_knowledge IS $$WE-MATH's knowledge structure: its 67 leaf concepts and their place in the tree (knowledge_structure_nodes.json).$$;
COMMENT ON COLUMN wemath_knowledge.leaf IS $$The leaf concept's name, as in a question's knowledge concept.$$;
COMMENT ON COLUMN wemath_knowledge.root0 IS $$Level 0 of the tree (the domain).$$;
COMMENT ON COLUMN wemath_knowledge.root1 IS $$Level 1: one of the 5 top categories (Measurement, Plane Figures, ...).$$;
COMMENT ON COLUMN wemath_knowledge.root2 IS $$Level 2: one of the 12 categories of the paper's Table 1.$$;
COMMENT ON COLUMN wemath_knowledge.root3 IS $$Level 3 of the tree.$$;
COMMENT ON COLUMN wemath_knowledge.root4 IS $$Level 4 of the tree, if any.$$;
COMMENT ON COLUMN wemath_knowledge.full_node IS $$The authors' full path root1_root2_root3[_root4].$$;
