-- ConceptMath probes (paper Sec. 4.3): contamination and concept classification.
-- Per-item scores computed outside SQL (Rouge-L, reciprocal rank) land in probe_scores;
-- MIN-K% is computed here from the scored questions' token log-probabilities.

-- The items a probe run covers, with their system and concept path (levels 1..3).
CREATE OR REPLACE VIEW conceptmath_probe_items AS
SELECT r.run_id, i.item_id, i.group_id AS system,
       i.payload->>'cate0' AS cate0, i.payload->>'cate1' AS cate1, i.payload->>'cate2' AS cate2
FROM runs r
JOIN items i ON i.benchmark = r.benchmark
WHERE r.benchmark = 'conceptmath';

-- MIN-K% (Shi et al. 2023) per question: the mean of the K% = 10% lowest token
-- log-probabilities of the question (at least one token). Higher: more likely seen in training.
CREATE OR REPLACE VIEW conceptmath_mink_items AS
WITH scored AS (
    SELECT c.run_id, c.item_id, t.logprob,
           row_number() OVER (PARTITION BY t.response_id ORDER BY t.logprob, t.position) AS rk,
           count(*) OVER (PARTITION BY t.response_id) AS n_tokens
    FROM current_responses c
    JOIN token_logprobs t ON t.response_id = c.response_id AND t.kind = 'prompt'
    WHERE c.status = 'ok'
)
SELECT run_id, item_id,
       any_value(n_tokens)                                       AS n_tokens,
       greatest(1, floor(0.1 * any_value(n_tokens)))::INTEGER    AS k,
       avg(logprob ORDER BY rk) FILTER (rk <= greatest(1, floor(0.1 * n_tokens))) AS min_k
FROM scored
GROUP BY run_id, item_id;

-- Paper Table 3, per system: mean Rouge-L of continuations, mean MIN-K%.
CREATE OR REPLACE VIEW contamination_rouge AS
SELECT s.run_id, p.system, count(*) AS n, avg(s.score ORDER BY s.item_id) AS rouge_l
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, p.system;

CREATE OR REPLACE VIEW contamination_mink AS
SELECT m.run_id, p.system, count(*) AS n, avg(m.min_k ORDER BY m.item_id) AS min_k
FROM conceptmath_mink_items m JOIN conceptmath_probe_items p USING (run_id, item_id)
GROUP BY m.run_id, p.system;

-- The same per concept, at the three levels (concept = the official path).
CREATE OR REPLACE VIEW conceptmath_probe_item_concepts AS
SELECT run_id, item_id, system, 1 AS level, cate0 AS concept FROM conceptmath_probe_items
UNION ALL
SELECT run_id, item_id, system, 2, cate0 || '/' || cate1 FROM conceptmath_probe_items
UNION ALL
SELECT run_id, item_id, system, 3, cate0 || '/' || cate1 || '/' || cate2 FROM conceptmath_probe_items;

CREATE OR REPLACE VIEW contamination_rouge_concept AS
SELECT s.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(s.score ORDER BY s.item_id) AS rouge_l
FROM probe_scores s JOIN conceptmath_probe_item_concepts c USING (run_id, item_id)
WHERE s.probe = 'rouge_l'
GROUP BY s.run_id, c.system, c.level, c.concept;

CREATE OR REPLACE VIEW contamination_mink_concept AS
SELECT m.run_id, c.system, c.level, c.concept, count(*) AS n,
       avg(m.min_k ORDER BY m.item_id) AS min_k
FROM conceptmath_mink_items m JOIN conceptmath_probe_item_concepts c USING (run_id, item_id)
GROUP BY m.run_id, c.system, c.level, c.concept;

-- Paper Tables 6/8/9: concept classification per system. MRR = mean reciprocal rank of the
-- true level-2 concept in the model's ranking (0 when absent); top-1 = share ranked first.
CREATE OR REPLACE VIEW conceptmath_classification AS
SELECT s.run_id, p.system, count(*) AS n,
       avg(s.score ORDER BY s.item_id)            AS mrr,
       count(*) FILTER (s.score = 1.0) / count(*) AS top1
FROM probe_scores s JOIN conceptmath_probe_items p USING (run_id, item_id)
WHERE s.probe = 'reciprocal_rank'
GROUP BY s.run_id, p.system;
