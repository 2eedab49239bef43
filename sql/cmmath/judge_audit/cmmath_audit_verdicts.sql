-- A grader's verdicts on that sample; NULL = undecided (rules) or judge_failed (judge).
CREATE TABLE IF NOT EXISTS cmmath_audit_verdicts (
    audit_id     VARCHAR NOT NULL,
    grader       VARCHAR NOT NULL,
    idx          INTEGER NOT NULL,
    verdict      BOOLEAN,
    PRIMARY KEY (audit_id, grader, idx)
);

COMMENT ON TABLE cmmath_audit_verdicts IS $$A grader's verdicts on the judgment sample.$$;
COMMENT ON COLUMN cmmath_audit_verdicts.audit_id IS $$The audit (mathprobe judge-audit --audit-id).$$;
COMMENT ON COLUMN cmmath_audit_verdicts.grader IS $$The grader audited: rules, judge:<model> or cascade:<model>.$$;
COMMENT ON COLUMN cmmath_audit_verdicts.idx IS $$The sample record.$$;
COMMENT ON COLUMN cmmath_audit_verdicts.verdict IS $$Its verdict; NULL: undecided (rules) or judge_failed.$$;
