-- ConceptMath probes (paper Sec. 4.3): contamination and concept classification.
-- Per-item scores computed outside SQL (Rouge-L, reciprocal rank) land in probe_scores;
-- MIN-K% is computed here from the scored questions' token log-probabilities.

-- The items a probe run covers, with their system and concept path (levels 1..3).
CREATE OR REPLACE VIEW conceptmath_probe_items AS
SELECT r.run_id, i.item_id, i.system, i.cate0, i.cate1, i.cate2
FROM runs r
CROSS JOIN conceptmath_items i
WHERE r.benchmark = 'conceptmath';

-- MIN-K% (Shi et al. 2023) per question: the mean of the K% = 10% lowest token
-- log-probabilities of the question (at least one token). Higher: more likely seen in training.
-- `min_k` is Shi et al.'s MIN-K% PROB as they define it, a mean log-probability (<= 0);
-- `min_k_prob` = exp(min_k), the same on the probability scale (0, 1]: the geometric mean of
-- those tokens' probabilities, monotone in min_k (same order), higher still more likely seen.
CREATE OR REPLACE MACRO conceptmath_mink_items_of(runs) AS TABLE
WITH per_item AS (       -- each scored question's token log-probabilities, lowest first
    SELECT c.run_id, c.item_id, list_sort(list(t.logprob)) AS lowest_first
    FROM current_responses_of(runs) c
    JOIN token_logprobs t ON t.response_id = c.response_id AND t.kind = 'prompt'
    WHERE c.status = 'ok'
    GROUP BY c.run_id, c.item_id
), with_k AS (
    SELECT run_id, item_id, lowest_first,
           len(lowest_first)                                      AS n_tokens,
           greatest(1, floor(0.1 * len(lowest_first)))::INTEGER  AS k
    FROM per_item
)
SELECT run_id, item_id, n_tokens, k,
       list_avg(lowest_first[1:k])          AS min_k,
       exp(list_avg(lowest_first[1:k]))     AS min_k_prob
FROM with_k;

-- Stored per probe run (mathprobe/store/stored_sql.py): the sorting of every question's token
-- log-probabilities is done once per run, not per query.
-- @stored conceptmath_mink_items

-- Paper Table 3, per system: mean Rouge-L F of the continuations (as a fraction, and x100 as the
-- paper prints it); mean MIN-K% (as a mean log-probability, and on the probability scale).
CREATE OR REPLACE VIEW contamination_rouge AS
SELECT s.run_id, p.system, count(*) AS n,
       avg(s.score ORDER BY s.item_id)          AS rouge_l,
       100 * avg(s.score ORDER BY s.item_id)    AS rouge_l_x100
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, p.system;

CREATE OR REPLACE VIEW contamination_mink AS
SELECT m.run_id, p.system, count(*) AS n,
       avg(m.min_k ORDER BY m.item_id)          AS min_k,
       avg(m.min_k_prob ORDER BY m.item_id)     AS min_k_prob
FROM conceptmath_mink_items m JOIN conceptmath_probe_items p USING (run_id, item_id)
GROUP BY m.run_id, p.system;

-- The same per concept, at the three levels (concept = the official path).
CREATE OR REPLACE VIEW conceptmath_probe_item_concepts AS
SELECT p.run_id, p.item_id, p.system, l.level, l.concept
FROM conceptmath_probe_items p
CROSS JOIN LATERAL (VALUES (1, p.cate0), (2, p.cate0 || '/' || p.cate1),
                           (3, p.cate0 || '/' || p.cate1 || '/' || p.cate2)) AS l(level, concept);

-- For a set of runs (sql/core/10_current.sql: `runs` names run_data or live_run_spans; a run
-- whose span is empty there is stored, not live). Both stored per probe run: ~300 concept rows
-- a run, read instead of re-joining every question to its concepts.
CREATE OR REPLACE MACRO contamination_rouge_concept_of(runs) AS TABLE
SELECT s.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(s.score ORDER BY s.item_id)          AS rouge_l,
       100 * avg(s.score ORDER BY s.item_id)    AS rouge_l_x100
FROM probe_scores s
JOIN query_table(runs) d ON d.run_id = s.run_id AND d.first_response_id <= d.last_response_id
JOIN conceptmath_probe_item_concepts c ON c.run_id = s.run_id AND c.item_id = s.item_id
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, c.system, c.level, c.concept;
-- @stored contamination_rouge_concept

CREATE OR REPLACE MACRO contamination_mink_concept_of(runs) AS TABLE
SELECT m.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(m.min_k ORDER BY m.item_id)          AS min_k,
       avg(m.min_k_prob ORDER BY m.item_id)     AS min_k_prob
FROM conceptmath_mink_items_of(runs) m
JOIN conceptmath_probe_item_concepts c ON c.run_id = m.run_id AND c.item_id = m.item_id
GROUP BY m.run_id, c.system, c.level, c.concept;
-- @stored contamination_mink_concept

-- Paper Tables 6/8/9: concept classification per system. MRR = mean reciprocal rank of the
-- true level-2 concept in the model's ranking (0 when absent); top-1 = share ranked first. Open
-- models rank the concepts, listed as options A, B, ..., by the likelihood of each label; API
-- models reply with a ranked list.
CREATE OR REPLACE VIEW conceptmath_classification AS
SELECT s.run_id, p.system, count(*) AS n,
       avg(s.score ORDER BY s.item_id)            AS mrr,
       count(*) FILTER (s.score = 1.0) / count(*) AS top1
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'reciprocal_rank'
GROUP BY s.run_id, p.system;

COMMENT ON VIEW conceptmath_mink_items IS 'MIN-K% (Shi et al. 2023, K = 10%, at least one token) of each scored question.';
COMMENT ON COLUMN conceptmath_mink_items.min_k IS 'Mean log-probability of the K% least likely tokens of the question (Shi et al.''s MIN-K% PROB); higher: more likely seen.';
COMMENT ON COLUMN conceptmath_mink_items.min_k_prob IS 'exp(min_k): the geometric mean probability of those tokens, in (0, 1]; the same order as min_k.';
COMMENT ON VIEW contamination_rouge IS 'Paper Table 3 (Rouge): mean Rouge-L F of the continuations of the questions'' first halves, per system.';
COMMENT ON COLUMN contamination_rouge.rouge_l IS 'Mean Rouge-L F-measure, a fraction in [0, 1].';
COMMENT ON COLUMN contamination_rouge.rouge_l_x100 IS 'The same x100, as the paper''s Table 3 prints it.';
COMMENT ON VIEW contamination_mink IS 'Paper Table 3 (Prob): mean MIN-K% of the questions, per system.';
COMMENT ON COLUMN contamination_mink.min_k IS 'Mean over questions of MIN-K% as a mean log-probability (<= 0).';
COMMENT ON COLUMN contamination_mink.min_k_prob IS 'Mean over questions of exp(MIN-K%), on the probability scale (0, 1].';
