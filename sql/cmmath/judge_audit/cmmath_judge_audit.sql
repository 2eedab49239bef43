-- CMMaTH's judge audit: a grader's verdicts on the authors' GradeGPT judgment sample against
-- GPT-4's (mathprobe/benchmarks/cmmath/grading/judge_audit.py, `mathprobe judge-audit`).

-- The authors' GradeGPT instruction sample with GPT-4's verdicts.
CREATE TABLE IF NOT EXISTS cmmath_judge_audit (
    idx           INTEGER PRIMARY KEY,         -- line number in gradegpt_judgments_sample.jsonl
    question      VARCHAR,
    reference     VARCHAR,
    response      VARCHAR,
    gpt4_verdict  BOOLEAN NOT NULL
);

COMMENT ON TABLE cmmath_judge_audit IS $$The authors' GradeGPT judgment sample with GPT-4's verdicts (gradegpt_judgments_sample.jsonl), for auditing graders.$$;
COMMENT ON COLUMN cmmath_judge_audit.idx IS $$Line number in the sample.$$;
COMMENT ON COLUMN cmmath_judge_audit.question IS $$The question.$$;
COMMENT ON COLUMN cmmath_judge_audit.reference IS $$The reference answer.$$;
COMMENT ON COLUMN cmmath_judge_audit.response IS $$The model response judged.$$;
COMMENT ON COLUMN cmmath_judge_audit.gpt4_verdict IS $$GPT-4's verdict: the response is right.$$;
