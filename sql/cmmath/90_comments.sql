-- CMMaTH's tables and views explain themselves (comments not already given beside the
-- definitions). Applied after every definition of sql/cmmath/.

COMMENT ON TABLE cmmath_judge_audit IS 'The authors'' GradeGPT judgment sample with GPT-4''s verdicts (gradegpt_judgments_sample.jsonl), for auditing graders.';
COMMENT ON COLUMN cmmath_judge_audit.idx IS 'Line number in the sample.';
COMMENT ON COLUMN cmmath_judge_audit.question IS 'The question.';
COMMENT ON COLUMN cmmath_judge_audit.reference IS 'The reference answer.';
COMMENT ON COLUMN cmmath_judge_audit.response IS 'The model response judged.';
COMMENT ON COLUMN cmmath_judge_audit.gpt4_verdict IS 'GPT-4''s verdict: the response is right.';

COMMENT ON TABLE cmmath_audit_verdicts IS 'A grader''s verdicts on the judgment sample.';
COMMENT ON COLUMN cmmath_audit_verdicts.audit_id IS 'The audit (mathprobe judge-audit --audit-id).';
COMMENT ON COLUMN cmmath_audit_verdicts.grader IS 'The grader audited: rules, judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_audit_verdicts.idx IS 'The sample record.';
COMMENT ON COLUMN cmmath_audit_verdicts.verdict IS 'Its verdict; NULL: undecided (rules) or judge_failed.';

COMMENT ON COLUMN cmmath_answers.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_answers.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_answers.item_id IS 'The question (problem_id).';
COMMENT ON COLUMN cmmath_answers.answer_type IS 'choice or free_form.';
COMMENT ON COLUMN cmmath_answers.grade_id IS 'School grade, 1 to 12.';
COMMENT ON COLUMN cmmath_answers.grade_group IS '1 elementary, 2 junior, 3 senior.';
COMMENT ON COLUMN cmmath_answers.category IS 'The visual subject.';
COMMENT ON COLUMN cmmath_answers.answer IS 'The reference answer as in cmmath.json.';
COMMENT ON COLUMN cmmath_answers.official_point IS 'The one knowledge point the authors'' SSR counts the question toward (NULL: their walk skips it).';

COMMENT ON COLUMN cmmath_coverage.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_coverage.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';

COMMENT ON COLUMN cmmath_paper_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_paper_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';

COMMENT ON COLUMN cmmath_paper_category_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_paper_category_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_paper_category_accuracy.n IS 'Answers of the visual subject.';
COMMENT ON COLUMN cmmath_paper_category_accuracy.correct IS 'Answers graded right.';

COMMENT ON COLUMN cmmath_paper_grade_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.n IS 'Answers of the grade group.';
COMMENT ON COLUMN cmmath_paper_grade_accuracy.correct IS 'Answers graded right.';

COMMENT ON COLUMN cmmath_paper_point_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_paper_point_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_paper_point_accuracy.n IS 'Answers of questions under the point.';
COMMENT ON COLUMN cmmath_paper_point_accuracy.correct IS 'Answers graded right.';

COMMENT ON COLUMN cmmath_paper_ssr.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_paper_ssr.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';

COMMENT ON COLUMN cmmath_official_answers.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_official_answers.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_official_answers.item_id IS 'The question.';
COMMENT ON COLUMN cmmath_official_answers.breakdown IS 'subject, grade_id or question_type.';

COMMENT ON COLUMN cmmath_official_scores.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_official_scores.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';

COMMENT ON COLUMN cmmath_official_ssr.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_official_ssr.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';

COMMENT ON VIEW judge_agreement IS 'A grader''s verdicts on the GradeGPT sample against GPT-4''s: agreement, balanced accuracy, precision and recall of Yes, confusion counts.';
COMMENT ON COLUMN judge_agreement.audit_id IS 'The audit.';
COMMENT ON COLUMN judge_agreement.grader IS 'The grader audited.';
COMMENT ON COLUMN judge_agreement.n IS 'Sample records it was run on.';
COMMENT ON COLUMN judge_agreement.n_decided IS 'Records it decided.';
COMMENT ON COLUMN judge_agreement.undecided_share IS '(n - n_decided) / n.';
COMMENT ON COLUMN judge_agreement.agreement IS 'Share of decided records equal to GPT-4''s verdict.';
COMMENT ON COLUMN judge_agreement.kappa IS 'Cohen''s kappa with GPT-4 over the decided records: (p_o - p_e) / (1 - p_e), p_e the agreement expected by chance; NULL when p_e = 1.';
COMMENT ON COLUMN judge_agreement.balanced_accuracy IS 'Mean of the recall on Yes and on No.';
COMMENT ON COLUMN judge_agreement.precision_yes IS 'Of its Yes, the share GPT-4 said Yes to.';
COMMENT ON COLUMN judge_agreement.recall_yes IS 'Of GPT-4''s Yes, the share it said Yes to.';
COMMENT ON COLUMN judge_agreement.tp IS 'Both Yes.';
COMMENT ON COLUMN judge_agreement.fp IS 'It Yes, GPT-4 No.';
COMMENT ON COLUMN judge_agreement.tn IS 'Both No.';
COMMENT ON COLUMN judge_agreement.fn IS 'It No, GPT-4 Yes.';

COMMENT ON VIEW cmmath_figure_units IS 'Layer 4 (compare, HTML report): what each answer contributes to each CMMaTH figure, the paper''s and the authors'', so a bootstrap resamples questions; summed over a run they give the figure views exactly (the authors'' before their rounding and +1).';
COMMENT ON COLUMN cmmath_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_figure_units.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe''s score).';
COMMENT ON COLUMN cmmath_figure_units.unit IS 'The resampled unit: the question.';
COMMENT ON COLUMN cmmath_figure_units.item IS 'The paired unit of a McNemar test: the question.';
COMMENT ON COLUMN cmmath_figure_units.cell IS 'The figure''s cell: all, type:<answer type>, grade:<grade group>, subject:<visual subject>, point:<leaf knowledge point> (the paper''s); official:<breakdown>:<group>, official_point:<point> (the authors'').';
COMMENT ON COLUMN cmmath_figure_units.num IS 'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).';
COMMENT ON COLUMN cmmath_figure_units.den IS 'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).';
COMMENT ON COLUMN cmmath_official_answers.is_right IS 'the grader''s verdict is TRUE (undecided: not right), in whichever group; their overall score counts these';
