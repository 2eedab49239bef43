-- ConceptMath's tables and views explain themselves (comments not already given beside the
-- definitions). Applied after every definition of sql/conceptmath/.

COMMENT ON VIEW conceptmath_item_verdicts IS 'ConceptMath layer 2: every graded problem with its system and its place in the concept hierarchy.';
COMMENT ON COLUMN conceptmath_item_verdicts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_item_verdicts.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_item_verdicts.item_id IS 'The problem: {system}/{idx}.';
COMMENT ON COLUMN conceptmath_item_verdicts.system IS 'element_en, element_zh, middle_en or middle_zh.';
COMMENT ON COLUMN conceptmath_item_verdicts.cate0 IS 'Level 1 of its concept path.';
COMMENT ON COLUMN conceptmath_item_verdicts.cate1 IS 'Level 2.';
COMMENT ON COLUMN conceptmath_item_verdicts.cate2 IS 'Level 3 (the leaf).';
COMMENT ON COLUMN conceptmath_item_verdicts.correct IS 'Whether the answer is right.';

COMMENT ON VIEW conceptmath_accuracy IS 'Paper Table 2, one cell: a run''s accuracy on a system (the run''s setting is its column).';
COMMENT ON COLUMN conceptmath_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_accuracy.system IS 'The system.';
COMMENT ON COLUMN conceptmath_accuracy.n IS 'Graded problems of the system.';
COMMENT ON COLUMN conceptmath_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN conceptmath_accuracy.accuracy IS 'correct / n, a fraction (Table 2 prints it x100).';

COMMENT ON VIEW conceptmath_run_accuracy IS 'A run''s accuracy over all its problems, whatever systems it covers.';
COMMENT ON COLUMN conceptmath_run_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_run_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_run_accuracy.n IS 'Graded problems.';
COMMENT ON COLUMN conceptmath_run_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN conceptmath_run_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON VIEW conceptmath_concept_accuracy IS 'Concept accuracy at the three levels of the hierarchy, per system (the authors'' per-concept metric).';
COMMENT ON COLUMN conceptmath_concept_accuracy.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_concept_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_concept_accuracy.system IS 'The system.';
COMMENT ON COLUMN conceptmath_concept_accuracy.level IS '1, 2 or 3.';
COMMENT ON COLUMN conceptmath_concept_accuracy.concept IS 'The concept path: cate0, cate0/cate1 or cate0/cate1/cate2.';
COMMENT ON COLUMN conceptmath_concept_accuracy.n IS 'Graded problems under it.';
COMMENT ON COLUMN conceptmath_concept_accuracy.correct IS 'Right answers.';
COMMENT ON COLUMN conceptmath_concept_accuracy.accuracy IS 'correct / n, a fraction.';

COMMENT ON COLUMN conceptmath_mean_concept_runs.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_mean_concept_runs.model IS 'The model.';
COMMENT ON COLUMN conceptmath_mean_concept_runs.system IS 'The system.';
COMMENT ON COLUMN conceptmath_mean_concept_runs.run_id IS 'The run chosen for the model and system.';
COMMENT ON COLUMN conceptmath_mean_concept_runs.started_at IS 'When that run started (UTC).';

COMMENT ON COLUMN conceptmath_mean_concept_accuracy.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.system IS 'The system.';
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.level IS '1, 2 or 3.';
COMMENT ON COLUMN conceptmath_mean_concept_accuracy.concept IS 'The concept path.';

COMMENT ON VIEW conceptmath_unmastered IS 'The lowest concepts of a run (unmastered, paper Sec. 4), ranked within system and level, among the concepts with at least conceptmath_unmastered_min_n() graded problems (5).';
COMMENT ON COLUMN conceptmath_unmastered.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_unmastered.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>.';
COMMENT ON COLUMN conceptmath_unmastered.system IS 'The system.';
COMMENT ON COLUMN conceptmath_unmastered.level IS '1, 2 or 3.';
COMMENT ON COLUMN conceptmath_unmastered.concept IS 'The concept path.';
COMMENT ON COLUMN conceptmath_unmastered.n IS 'Graded problems under it.';
COMMENT ON COLUMN conceptmath_unmastered.accuracy IS 'Its accuracy, a fraction.';
COMMENT ON COLUMN conceptmath_unmastered.rank IS '1 = the lowest accuracy; ties: more problems first, then by name.';

COMMENT ON VIEW conceptmath_grader_disagreement IS 'Problems on which the official and strict graders disagree, with the response they graded.';
COMMENT ON COLUMN conceptmath_grader_disagreement.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_grader_disagreement.item_id IS 'The problem.';
COMMENT ON COLUMN conceptmath_grader_disagreement.system IS 'Its system.';
COMMENT ON COLUMN conceptmath_grader_disagreement.official IS 'The official grader''s verdict.';
COMMENT ON COLUMN conceptmath_grader_disagreement.strict IS 'The strict grader''s verdict.';
COMMENT ON COLUMN conceptmath_grader_disagreement.response IS 'The response graded.';

COMMENT ON VIEW conceptmath_probe_items IS 'The items a ConceptMath probe run covers, with system and concept path.';
COMMENT ON COLUMN conceptmath_probe_items.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_probe_items.item_id IS 'The problem.';
COMMENT ON COLUMN conceptmath_probe_items.system IS 'Its system.';
COMMENT ON COLUMN conceptmath_probe_items.cate0 IS 'Level 1 of its path.';
COMMENT ON COLUMN conceptmath_probe_items.cate1 IS 'Level 2.';
COMMENT ON COLUMN conceptmath_probe_items.cate2 IS 'Level 3.';

COMMENT ON COLUMN conceptmath_mink_items.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_mink_items.item_id IS 'The question scored.';
COMMENT ON COLUMN conceptmath_mink_items.n_tokens IS 'Tokens of the question with a log-probability.';
COMMENT ON COLUMN conceptmath_mink_items.k IS 'Tokens averaged: 10% of them, at least one.';

COMMENT ON COLUMN contamination_rouge.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN contamination_rouge.system IS 'The system.';
COMMENT ON COLUMN contamination_rouge.n IS 'Questions continued.';

COMMENT ON COLUMN contamination_mink.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN contamination_mink.system IS 'The system.';
COMMENT ON COLUMN contamination_mink.n IS 'Questions scored.';

COMMENT ON VIEW conceptmath_probe_item_concepts IS 'Each probed item under each of its three concept levels.';
COMMENT ON COLUMN conceptmath_probe_item_concepts.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_probe_item_concepts.item_id IS 'The problem.';
COMMENT ON COLUMN conceptmath_probe_item_concepts.system IS 'Its system.';
COMMENT ON COLUMN conceptmath_probe_item_concepts.level IS '1, 2 or 3.';
COMMENT ON COLUMN conceptmath_probe_item_concepts.concept IS 'The concept path at that level.';

COMMENT ON VIEW contamination_rouge_concept IS 'Paper Table 3 (Rouge) per concept: mean Rouge-L F of the continuations, per system, level and concept.';
COMMENT ON COLUMN contamination_rouge_concept.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN contamination_rouge_concept.system IS 'The system.';
COMMENT ON COLUMN contamination_rouge_concept.level IS '1, 2 or 3.';
COMMENT ON COLUMN contamination_rouge_concept.concept IS 'The concept path.';
COMMENT ON COLUMN contamination_rouge_concept.n IS 'Questions continued.';
COMMENT ON COLUMN contamination_rouge_concept.rouge_l IS 'Mean Rouge-L F, a fraction.';
COMMENT ON COLUMN contamination_rouge_concept.rouge_l_x100 IS 'The same x100.';

COMMENT ON VIEW contamination_mink_concept IS 'Paper Table 3 (Prob) per concept: mean MIN-K% of the questions, per system, level and concept.';
COMMENT ON COLUMN contamination_mink_concept.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN contamination_mink_concept.system IS 'The system.';
COMMENT ON COLUMN contamination_mink_concept.level IS '1, 2 or 3.';
COMMENT ON COLUMN contamination_mink_concept.concept IS 'The concept path.';
COMMENT ON COLUMN contamination_mink_concept.n IS 'Questions scored.';
COMMENT ON COLUMN contamination_mink_concept.min_k IS 'Mean MIN-K% as a mean log-probability (<= 0).';
COMMENT ON COLUMN contamination_mink_concept.min_k_prob IS 'Mean exp(MIN-K%), in (0, 1].';

COMMENT ON VIEW conceptmath_classification IS 'Paper Tables 6/8/9: concept classification per system: MRR and top-1 of the true level-2 concept.';
COMMENT ON COLUMN conceptmath_classification.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_classification.system IS 'The system.';
COMMENT ON COLUMN conceptmath_classification.n IS 'Questions classified.';
COMMENT ON COLUMN conceptmath_classification.mrr IS 'Mean reciprocal rank of the true concept (0 when absent from the ranking).';
COMMENT ON COLUMN conceptmath_classification.top1 IS 'Share ranked first, a fraction.';

COMMENT ON VIEW conceptmath_figure_units IS 'Layer 4 (compare, HTML report): what each problem contributes to each ConceptMath figure, so a bootstrap resamples problems; summed over a run they give the figure views exactly.';
COMMENT ON COLUMN conceptmath_figure_units.run_id IS 'The run (runs.run_id).';
COMMENT ON COLUMN conceptmath_figure_units.grader IS 'The grader of the verdicts: a rule grader (e.g. official, strict, rules), judge:<model> or cascade:<model>. NULL: a figure no grader decides (a probe''s score).';
COMMENT ON COLUMN conceptmath_figure_units.unit IS 'The resampled unit: the problem.';
COMMENT ON COLUMN conceptmath_figure_units.item IS 'The paired unit of a McNemar test: the problem.';
COMMENT ON COLUMN conceptmath_figure_units.cell IS 'The figure''s cell: all, system:<system>, L1/L2/L3:<system>:<concept path>; probe runs: rouge, mink, mink_prob, mrr, top1 :<system>.';
COMMENT ON COLUMN conceptmath_figure_units.num IS 'What the unit adds to the figure''s numerator (e.g. 1 for a right answer).';
COMMENT ON COLUMN conceptmath_figure_units.den IS 'What the unit adds to the figure''s denominator (e.g. 1 per graded question); the figure is sum(num) / sum(den).';

COMMENT ON TABLE conceptmath_items IS 'ConceptMath: one row per problem of the four systems with the labels its figures group by (loaded from the data directory; a store made before the table: from items.payload).';
COMMENT ON COLUMN conceptmath_items.item_id IS 'The problem (items.item_id).';
COMMENT ON COLUMN conceptmath_items.system IS 'element_en | element_zh | middle_en | middle_zh (items.group_id)';
COMMENT ON COLUMN conceptmath_items.cate0 IS 'Level 1 of its concept path (the data row''s cate0).';
COMMENT ON COLUMN conceptmath_items.cate1 IS 'Level 2 (cate1).';
COMMENT ON COLUMN conceptmath_items.cate2 IS 'Level 3 (cate2; may itself hold ''/'').';
