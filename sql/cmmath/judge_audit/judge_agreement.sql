-- The judge audit: a grader's verdicts on the GradeGPT sample against GPT-4's. `n` counts the
-- sample records the grader was run on; the rest are over the records it decided (verdict not
-- NULL): agreement = share equal to GPT-4's; precision/recall of Yes (GPT-4's Yes = positive);
-- balanced accuracy = mean of the recall on Yes and the recall on No; Cohen's kappa = (p_o -
-- p_e) / (1 - p_e), p_o the agreement, p_e the agreement expected by chance.
CREATE OR REPLACE VIEW judge_agreement AS
WITH counts AS (
    SELECT v.audit_id, v.grader,
           count(*)                                                   AS n,
           count(v.verdict)                                           AS n_decided,
           count(*) FILTER (v.verdict AND a.gpt4_verdict)             AS tp,
           count(*) FILTER (v.verdict AND NOT a.gpt4_verdict)         AS fp,
           count(*) FILTER (NOT v.verdict AND NOT a.gpt4_verdict)     AS tn,
           count(*) FILTER (NOT v.verdict AND a.gpt4_verdict)         AS fn
    FROM cmmath_audit_verdicts v
    JOIN cmmath_judge_audit a ON a.idx = v.idx
    GROUP BY v.audit_id, v.grader
), rates AS (
    SELECT *,
           CASE WHEN tp + fn > 0 THEN tp / (tp + fn) END             AS recall_yes,
           CASE WHEN tn + fp > 0 THEN tn / (tn + fp) END             AS recall_no,
           CASE WHEN n_decided > 0 THEN (tp + tn) / n_decided END    AS p_o,
           CASE WHEN n_decided > 0 THEN ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn))
                                        / (n_decided * n_decided) END AS p_e
    FROM counts
)
SELECT audit_id, grader, n, n_decided,
       (n - n_decided) / n                                           AS undecided_share,
       p_o                                                           AS agreement,
       CASE WHEN p_e < 1 THEN (p_o - p_e) / (1 - p_e) END            AS kappa,
       (recall_yes + recall_no) / 2                                  AS balanced_accuracy,
       CASE WHEN tp + fp > 0 THEN tp / (tp + fp) END                 AS precision_yes,
       recall_yes,
       tp, fp, tn, fn
FROM rates;

COMMENT ON VIEW judge_agreement IS $$A grader's verdicts on the GradeGPT sample against GPT-4's: agreement, balanced accuracy, precision and recall of Yes, confusion counts.$$;
COMMENT ON COLUMN judge_agreement.audit_id IS $$The audit.$$;
COMMENT ON COLUMN judge_agreement.grader IS $$The grader audited.$$;
COMMENT ON COLUMN judge_agreement.n IS $$Sample records it was run on.$$;
COMMENT ON COLUMN judge_agreement.n_decided IS $$Records it decided.$$;
COMMENT ON COLUMN judge_agreement.undecided_share IS $$(n - n_decided) / n.$$;
COMMENT ON COLUMN judge_agreement.agreement IS $$Share of decided records equal to GPT-4's verdict.$$;
COMMENT ON COLUMN judge_agreement.kappa IS $$Cohen's kappa with GPT-4 over the decided records: (p_o - p_e) / (1 - p_e), p_e the agreement expected by chance; NULL when p_e = 1.$$;
COMMENT ON COLUMN judge_agreement.balanced_accuracy IS $$Mean of the recall on Yes and on No.$$;
COMMENT ON COLUMN judge_agreement.precision_yes IS $$Of its Yes, the share GPT-4 said Yes to.$$;
COMMENT ON COLUMN judge_agreement.recall_yes IS $$Of GPT-4's Yes, the share it said Yes to.$$;
COMMENT ON COLUMN judge_agreement.tp IS $$Both Yes.$$;
COMMENT ON COLUMN judge_agreement.fp IS $$It Yes, GPT-4 No.$$;
COMMENT ON COLUMN judge_agreement.tn IS $$Both No.$$;
COMMENT ON COLUMN judge_agreement.fn IS $$It No, GPT-4 Yes.$$;
