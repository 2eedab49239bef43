-- CMMaTH's tables and views explain themselves. Applied after every definition of sql/cmmath/.

COMMENT ON TABLE cmmath_items IS 'CMMaTH''s question labels the figures group by (from cmmath.json).';
COMMENT ON COLUMN cmmath_items.item_id IS 'The question (problem_id).';
COMMENT ON COLUMN cmmath_items.answer_type IS 'choice or free_form.';
COMMENT ON COLUMN cmmath_items.grade_id IS 'School grade, 1 to 12.';
COMMENT ON COLUMN cmmath_items.grade_group IS '1 elementary (grades 1-6), 2 junior (7-9), 3 senior (10-12).';
COMMENT ON COLUMN cmmath_items.category IS 'The visual subject (metadata.multimodal-category: Bar Chart, Plane Geometry, ...).';

COMMENT ON TABLE cmmath_item_points IS 'Question -> its leaf knowledge points (a question counts toward each).';
COMMENT ON COLUMN cmmath_item_points.item_id IS 'The question.';
COMMENT ON COLUMN cmmath_item_points.point IS 'The leaf knowledge point''s name.';
COMMENT ON COLUMN cmmath_item_points.path IS 'Its path, root > ... > leaf.';
COMMENT ON COLUMN cmmath_item_points.source IS 'knowledge_point, or skill when knowledge_point is empty.';

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

COMMENT ON VIEW cmmath_item_verdicts IS 'CMMaTH layer 2: every graded answer with its question''s labels.';
COMMENT ON COLUMN cmmath_item_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_item_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_item_verdicts.item_id IS 'The question.';
COMMENT ON COLUMN cmmath_item_verdicts.answer_type IS 'choice or free_form.';
COMMENT ON COLUMN cmmath_item_verdicts.grade_id IS 'School grade, 1 to 12.';
COMMENT ON COLUMN cmmath_item_verdicts.grade_group IS '1 elementary, 2 junior, 3 senior.';
COMMENT ON COLUMN cmmath_item_verdicts.category IS 'The visual subject.';
COMMENT ON COLUMN cmmath_item_verdicts.correct IS 'Whether the answer is right.';
COMMENT ON COLUMN cmmath_item_verdicts.extracted IS 'The answer the grader extracted.';

COMMENT ON VIEW cmmath_grader_coverage IS 'How many of a run''s answers each grader decided (an undecided answer is in none of its figures).';
COMMENT ON COLUMN cmmath_grader_coverage.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_grader_coverage.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_grader_coverage.n_answers IS 'Answers of the run (ok, refused, missing).';
COMMENT ON COLUMN cmmath_grader_coverage.n_decided IS 'Answers the grader decided.';
COMMENT ON COLUMN cmmath_grader_coverage.n_undecided IS 'Answers it left undecided.';

COMMENT ON VIEW cmmath_accuracy IS 'Paper Table 4, overall and per answer type: correct / graded answers.';
COMMENT ON COLUMN cmmath_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_accuracy.answer_type IS 'all, choice or free_form.';
COMMENT ON COLUMN cmmath_accuracy.n IS 'Graded answers.';
COMMENT ON COLUMN cmmath_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN cmmath_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW cmmath_category_accuracy IS 'Paper Table 4, the visual-subject columns: accuracy per multimodal category.';
COMMENT ON COLUMN cmmath_category_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_category_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_category_accuracy.category IS 'The visual subject.';
COMMENT ON COLUMN cmmath_category_accuracy.n IS 'Graded answers.';
COMMENT ON COLUMN cmmath_category_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN cmmath_category_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW cmmath_grade_accuracy IS 'Paper Table 4, the grade columns: accuracy per grade group.';
COMMENT ON COLUMN cmmath_grade_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_grade_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_grade_accuracy.grade_group IS '1 elementary, 2 junior, 3 senior.';
COMMENT ON COLUMN cmmath_grade_accuracy.n IS 'Graded answers.';
COMMENT ON COLUMN cmmath_grade_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN cmmath_grade_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW cmmath_point_accuracy IS 'Accuracy per knowledge point (a question with several leaf points counts toward each).';
COMMENT ON COLUMN cmmath_point_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_point_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_point_accuracy.point IS 'The knowledge point.';
COMMENT ON COLUMN cmmath_point_accuracy.n IS 'Graded questions labelled with it.';
COMMENT ON COLUMN cmmath_point_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN cmmath_point_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW cmmath_ssr IS 'Knowledge-point mastery SSR@alpha (paper): the share of knowledge points whose accuracy is strictly above alpha.';
COMMENT ON COLUMN cmmath_ssr.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_ssr.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN cmmath_ssr.alpha IS 'The threshold: 0.1, 0.2, 0.3 or 0.6.';
COMMENT ON COLUMN cmmath_ssr.n_points IS 'Knowledge points with a graded question.';
COMMENT ON COLUMN cmmath_ssr.ssr IS 'Share of them with accuracy > alpha, a fraction.';

COMMENT ON VIEW judge_agreement IS 'A grader''s verdicts on the GradeGPT sample against GPT-4''s: agreement, balanced accuracy, precision and recall of Yes, confusion counts.';
COMMENT ON COLUMN judge_agreement.audit_id IS 'The audit.';
COMMENT ON COLUMN judge_agreement.grader IS 'The grader audited.';
COMMENT ON COLUMN judge_agreement.n IS 'Sample records it was run on.';
COMMENT ON COLUMN judge_agreement.n_decided IS 'Records it decided.';
COMMENT ON COLUMN judge_agreement.undecided_share IS '(n - n_decided) / n.';
COMMENT ON COLUMN judge_agreement.agreement IS 'Share of decided records equal to GPT-4''s verdict.';
COMMENT ON COLUMN judge_agreement.balanced_accuracy IS 'Mean of the recall on Yes and on No.';
COMMENT ON COLUMN judge_agreement.precision_yes IS 'Of its Yes, the share GPT-4 said Yes to.';
COMMENT ON COLUMN judge_agreement.recall_yes IS 'Of GPT-4''s Yes, the share it said Yes to.';
COMMENT ON COLUMN judge_agreement.tp IS 'Both Yes.';
COMMENT ON COLUMN judge_agreement.fp IS 'It Yes, GPT-4 No.';
COMMENT ON COLUMN judge_agreement.tn IS 'Both No.';
COMMENT ON COLUMN judge_agreement.fn IS 'It No, GPT-4 Yes.';

COMMENT ON VIEW cmmath_figure_units IS 'Layer 4 (compare, HTML report): what each question contributes to each CMMaTH figure (paper definitions), so a bootstrap resamples questions; summed over a run they give the figure views exactly.';
COMMENT ON COLUMN cmmath_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN cmmath_figure_units.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe''s score).';
COMMENT ON COLUMN cmmath_figure_units.unit IS 'The resampled unit: the question.';
COMMENT ON COLUMN cmmath_figure_units.item IS 'The paired unit of a McNemar test: the question.';
COMMENT ON COLUMN cmmath_figure_units.cell IS 'The figure''s cell: all, type:<answer type>, grade:<grade group>, subject:<visual subject>, point:<knowledge point>.';
COMMENT ON COLUMN cmmath_figure_units.num IS 'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).';
COMMENT ON COLUMN cmmath_figure_units.den IS 'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).';
