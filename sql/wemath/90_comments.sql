-- WE-MATH's tables and views explain themselves (comments not already given beside the
-- definitions in 20_views.sql). Applied after every definition of sql/wemath/.

COMMENT ON TABLE wemath_knowledge IS 'WE-MATH''s knowledge structure: its 67 leaf concepts and their place in the tree (knowledge_structure_nodes.json).';
COMMENT ON COLUMN wemath_knowledge.leaf IS 'The leaf concept''s name, as in a question''s knowledge concept.';
COMMENT ON COLUMN wemath_knowledge.root0 IS 'Level 0 of the tree (the domain).';
COMMENT ON COLUMN wemath_knowledge.root1 IS 'Level 1: one of the 5 top categories (Measurement, Plane Figures, ...).';
COMMENT ON COLUMN wemath_knowledge.root2 IS 'Level 2: one of the 12 categories of the paper''s Table 1.';
COMMENT ON COLUMN wemath_knowledge.root3 IS 'Level 3 of the tree.';
COMMENT ON COLUMN wemath_knowledge.root4 IS 'Level 4 of the tree, if any.';
COMMENT ON COLUMN wemath_knowledge.full_node IS 'The authors'' full path root1_root2_root3[_root4].';

COMMENT ON COLUMN wemath_question_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_question_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_question_verdicts.item_id IS 'The question: {ID}/{key}.';
COMMENT ON COLUMN wemath_question_verdicts.problem_id IS 'Its composite problem (ID).';
COMMENT ON COLUMN wemath_question_verdicts.key IS 'Which question of the problem: 2steps_1, 2steps_2, 2steps_multi, 3steps_1 .. 3steps_multi.';
COMMENT ON COLUMN wemath_question_verdicts.steps IS 'Steps of the problem: 2 or 3.';
COMMENT ON COLUMN wemath_question_verdicts.is_composite IS 'Whether it is the problem''s composite (multi) question.';
COMMENT ON COLUMN wemath_question_verdicts.concept IS 'Its leaf concept ('';''-joined leaves for a composite question).';
COMMENT ON COLUMN wemath_question_verdicts.correct IS 'Whether the answer is right.';

COMMENT ON COLUMN wemath_problem_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_problem_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_problem_verdicts.problem_id IS 'The composite problem (ID).';
COMMENT ON COLUMN wemath_problem_verdicts.steps IS 'Its steps: 2 or 3.';
COMMENT ON COLUMN wemath_problem_verdicts.n_subs IS 'One-step questions with a verdict.';
COMMENT ON COLUMN wemath_problem_verdicts.all_subs IS 'Every one-step question right.';
COMMENT ON COLUMN wemath_problem_verdicts.any_subs IS 'At least one one-step question right.';
COMMENT ON COLUMN wemath_problem_verdicts.multi IS 'The composite question right.';
COMMENT ON COLUMN wemath_problem_verdicts.complete IS 'Every question of the problem has a verdict: only complete problems enter the figures.';

COMMENT ON COLUMN wemath_item_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_item_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_item_verdicts.item_id IS 'The question.';
COMMENT ON COLUMN wemath_item_verdicts.problem_id IS 'Its problem.';
COMMENT ON COLUMN wemath_item_verdicts.key IS 'Its key (2steps_1 .. 3steps_multi).';
COMMENT ON COLUMN wemath_item_verdicts.steps IS 'Steps of its problem.';
COMMENT ON COLUMN wemath_item_verdicts.is_composite IS 'Whether it is the composite question.';
COMMENT ON COLUMN wemath_item_verdicts.concept IS 'Its leaf concept(s).';
COMMENT ON COLUMN wemath_item_verdicts.correct IS 'Whether the answer is right.';

COMMENT ON COLUMN wemath_problem_coverage.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_problem_coverage.problem_id IS 'The problem.';
COMMENT ON COLUMN wemath_problem_coverage.complete IS 'Every question answered (a response that counts): the problem can enter the figures.';

COMMENT ON VIEW wemath_four_dimensional IS 'Paper Table 2: the four-dimensional metric of each run under the strict and loose rules (alpha 0, beta 0.5); wemath_four_dimensional_scored(alpha, beta) takes other weights.';
COMMENT ON COLUMN wemath_four_dimensional.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_four_dimensional.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_four_dimensional.rule IS 'strict or loose (how CM and RM count partial one-step success).';
COMMENT ON COLUMN wemath_four_dimensional.n IS 'N: the complete problems of the run (525 on the full testmini).';
COMMENT ON COLUMN wemath_four_dimensional.ik IS 'IK, Insufficient Knowledge: problems with a one-step question wrong and the composite wrong.';
COMMENT ON COLUMN wemath_four_dimensional.ig IS 'IG, Inadequate Generalization: every one-step question right, the composite wrong.';
COMMENT ON COLUMN wemath_four_dimensional.cm IS 'CM, Complete Mastery: strict, every one-step right and the composite right; loose, any one-step right and the composite right.';
COMMENT ON COLUMN wemath_four_dimensional.rm IS 'RM, Rote Memorization: strict, the composite right but a one-step wrong; loose, the composite right with every one-step wrong.';
COMMENT ON COLUMN wemath_four_dimensional.ik_rate IS 'IK / N, a fraction.';
COMMENT ON COLUMN wemath_four_dimensional.ig_rate IS 'IG / N, a fraction.';
COMMENT ON COLUMN wemath_four_dimensional.cm_rate IS 'CM / N, a fraction.';
COMMENT ON COLUMN wemath_four_dimensional.rm_rate IS 'RM / (RM + CM), a fraction; NULL when no composite question is right.';
COMMENT ON COLUMN wemath_four_dimensional.score IS 'Score = (alpha IK + beta IG + CM) / N with alpha 0, beta 0.5, a fraction.';

COMMENT ON VIEW wemath_step_accuracy IS 'Paper Table 1, first columns: S1 (all one-step questions), S2, S3 (the composite questions of two- and three-step problems), over complete problems.';
COMMENT ON COLUMN wemath_step_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_step_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_step_accuracy.s1 IS 'S1: accuracy of the one-step questions, a fraction.';
COMMENT ON COLUMN wemath_step_accuracy.s2 IS 'S2: accuracy of the composite questions of two-step problems.';
COMMENT ON COLUMN wemath_step_accuracy.s3 IS 'S3: accuracy of the composite questions of three-step problems.';

COMMENT ON VIEW wemath_concept_accuracy IS 'Accuracy of the one-step questions labelled with each of the 67 leaf concepts.';
COMMENT ON COLUMN wemath_concept_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_concept_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_concept_accuracy.concept IS 'The leaf concept.';
COMMENT ON COLUMN wemath_concept_accuracy.n IS 'One-step questions labelled with it.';
COMMENT ON COLUMN wemath_concept_accuracy.correct IS 'Right answers among them.';
COMMENT ON COLUMN wemath_concept_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW wemath_category_accuracy IS 'Paper Table 1, the 12 categories: the unweighted mean of the category''s leaf accuracies (leaves without questions left out).';
COMMENT ON COLUMN wemath_category_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_category_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_category_accuracy.category IS 'The second-level category (root2); Table 1 abbreviates it (UCU, AL, CPF, ...).';
COMMENT ON COLUMN wemath_category_accuracy.accuracy IS 'Mean of its leaves'' accuracies, a fraction.';
COMMENT ON COLUMN wemath_category_accuracy.n_concepts IS 'Leaves with questions in the run.';
COMMENT ON COLUMN wemath_category_accuracy.n IS 'One-step questions of those leaves.';

COMMENT ON VIEW wemath_figure_units IS 'Layer 4 (compare, HTML report): what each complete problem contributes to each figure of Tables 1 and 2, so a bootstrap resamples whole problems; summed over a run they give the figure views exactly.';
COMMENT ON COLUMN wemath_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_figure_units.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe''s score).';
COMMENT ON COLUMN wemath_figure_units.unit IS 'The resampled unit: the problem (ID).';
COMMENT ON COLUMN wemath_figure_units.item IS 'The paired unit of a McNemar test: the question for question figures, the problem for problem figures.';
COMMENT ON COLUMN wemath_figure_units.cell IS 'The figure''s cell: ik, ig, cm.strict, cm.loose, rm.strict, rm.loose (RM / N), rm_rate.strict, rm_rate.loose (RM / (RM + CM)), score.strict, score.loose, s1, s2, s3, concept:<leaf>.';
COMMENT ON COLUMN wemath_figure_units.num IS 'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).';
COMMENT ON COLUMN wemath_figure_units.den IS 'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).';

COMMENT ON VIEW wemath_problem_dimensions IS 'Each complete problem''s dimension (IK, IG, CM or RM) under each rule: the per-problem layer of wemath_four_dimensional.';
COMMENT ON COLUMN wemath_problem_dimensions.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN wemath_problem_dimensions.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_problem_dimensions.problem_id IS 'The problem.';
COMMENT ON COLUMN wemath_problem_dimensions.rule IS 'strict or loose.';
COMMENT ON COLUMN wemath_problem_dimensions.dimension IS 'IK, IG, CM or RM.';

COMMENT ON VIEW wemath_kca_pairs IS 'The runs of paper Fig. 10: per model, its latest plain run and its latest KCA (knowledge concept augmentation) run.';
COMMENT ON COLUMN wemath_kca_pairs.model IS 'The model.';
COMMENT ON COLUMN wemath_kca_pairs.plain_run IS 'Its latest run with setting plain.';
COMMENT ON COLUMN wemath_kca_pairs.kca_run IS 'Its latest run with setting kca.';

COMMENT ON VIEW wemath_kca_transitions IS 'Paper Fig. 10: per model, how many problems moved from each dimension in its plain run to each in its KCA run (moves that happened; wemath_transitions(run_a, run_b) lists all 16 cells of any pair).';
COMMENT ON COLUMN wemath_kca_transitions.model IS 'The model.';
COMMENT ON COLUMN wemath_kca_transitions.plain_run IS 'Its plain run.';
COMMENT ON COLUMN wemath_kca_transitions.kca_run IS 'Its KCA run.';
COMMENT ON COLUMN wemath_kca_transitions.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN wemath_kca_transitions.rule IS 'strict or loose.';
COMMENT ON COLUMN wemath_kca_transitions.from_dim IS 'The problem''s dimension in the plain run.';
COMMENT ON COLUMN wemath_kca_transitions.to_dim IS 'Its dimension in the KCA run.';
COMMENT ON COLUMN wemath_kca_transitions.n IS 'Problems that moved so (complete in both runs).';
