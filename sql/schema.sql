-- mathprobe store. Applied at every connect; every statement is idempotent.
-- Responses are append-only history; verdicts are derived and may be recomputed.

CREATE TABLE IF NOT EXISTS runs (
    run_id       VARCHAR PRIMARY KEY,
    benchmark    VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,
    backend      VARCHAR NOT NULL,
    setting      VARCHAR NOT NULL,
    params       JSON,
    started_at   TIMESTAMP,
    finished_at  TIMESTAMP,
    status       VARCHAR NOT NULL,          -- running | completed | incomplete | stopped_max_cost | interrupted
    cost_usd     DOUBLE DEFAULT 0,
    n_items      INTEGER                    -- items the run covers (after --limit)
);

-- The Prefect flow run that last worked on the run: marked Crashed at the next start if its
-- process died (kill -9) and left the run 'running'.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS flow_run_id VARCHAR;
COMMENT ON COLUMN runs.flow_run_id IS 'The Prefect flow run that last worked on this run (NULL outside Prefect); a run left running by a dead process is marked interrupted, and this flow run Crashed, at the next start.';

-- Facts about the store itself, e.g. which version of the SQL layer its views come from.
CREATE TABLE IF NOT EXISTS store_meta (
    key    VARCHAR PRIMARY KEY,
    value  VARCHAR
);
COMMENT ON TABLE store_meta IS 'Facts about the store file itself: sql_layer = content hash of the SQL (tables, views, macros) last applied, so a read-only open (mathprobe report on a read-only or full disk) can tell whether its views are current; spooled:<batch id> = a batch of answers spooled when the store could not be written, stored since (so a spool stored again after a kill adds nothing).';
COMMENT ON COLUMN store_meta.key IS 'What the fact is about, e.g. sql_layer, spooled:<batch id>.';
COMMENT ON COLUMN store_meta.value IS 'The fact, e.g. the SHA-256 of the SQL files applied.';

CREATE TABLE IF NOT EXISTS items (
    benchmark    VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    group_id     VARCHAR,                   -- WE-MATH problem ID, ConceptMath system, ...
    part         VARCHAR,                   -- WE-MATH key (2steps_1 .. 3steps_multi)
    concept      VARCHAR,                   -- leaf concept, or ';'-joined leaves, or concept path
    question     VARCHAR,
    gold         VARCHAR,
    payload      JSON,                      -- the source row as loaded
    PRIMARY KEY (benchmark, item_id)
);

-- The chance level of each item (Benchmark.chance_level): the probability that a uniform
-- guess, written in the benchmark's answer format (baseline:random), is graded right.
CREATE TABLE IF NOT EXISTS item_chance (
    benchmark    VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    chance       DOUBLE
);

-- Which version of each benchmark's files `items` holds (content hash), so runs over
-- unchanged data skip re-loading it.
CREATE TABLE IF NOT EXISTS loaded_datasets (
    benchmark    VARCHAR PRIMARY KEY,
    fingerprint  VARCHAR NOT NULL,
    loaded_at    TIMESTAMP
);

CREATE SEQUENCE IF NOT EXISTS response_seq;

CREATE TABLE IF NOT EXISTS responses (
    response_id   BIGINT PRIMARY KEY DEFAULT nextval('response_seq'),
    run_id        VARCHAR NOT NULL,
    item_id       VARCHAR NOT NULL,
    request_hash  VARCHAR NOT NULL,         -- content hash of model, params, prompt, image bytes
    response      VARCHAR,                  -- NULL when the call failed or the source had none
    status        VARCHAR NOT NULL,         -- ok | infra_failed | refused | missing | truncated
    error         VARCHAR,
    attempts      INTEGER DEFAULT 1,
    latency_s     DOUBLE,
    input_tokens  BIGINT,
    output_tokens BIGINT,
    cost_usd      DOUBLE,
    created_at    TIMESTAMP DEFAULT current_timestamp
);

CREATE TABLE IF NOT EXISTS verdicts (
    run_id       VARCHAR NOT NULL,
    item_id      VARCHAR NOT NULL,
    grader       VARCHAR NOT NULL,
    response_id  BIGINT NOT NULL,            -- the response this verdict grades
    extracted    VARCHAR,
    correct      BOOLEAN NOT NULL,
    graded_at    TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (run_id, item_id, grader)
);

CREATE TABLE IF NOT EXISTS token_logprobs (
    response_id  BIGINT NOT NULL,
    position     INTEGER NOT NULL,
    token        VARCHAR,
    token_id     BIGINT,
    logprob      DOUBLE NOT NULL,
    kind         VARCHAR NOT NULL,          -- generated | prompt
    PRIMARY KEY (response_id, kind, position)
);

-- Per-item scores of probe runs that are computed outside SQL (e.g. Rouge-L of a
-- continuation, the reciprocal rank of a classification), one per (run, item, probe).
CREATE TABLE IF NOT EXISTS probe_scores (
    run_id    VARCHAR NOT NULL,
    item_id   VARCHAR NOT NULL,
    probe     VARCHAR NOT NULL,        -- rouge_l | reciprocal_rank
    score     DOUBLE NOT NULL,
    detail    VARCHAR,                 -- e.g. the parsed ranking
    PRIMARY KEY (run_id, item_id, probe)
);

-- Per run: the span of its response ids and a data version, both kept by the store's writes
-- (mathprobe/store/run_data.py) in the transaction that changes the run. The views join the span in,
-- so a question about one run reads only the row groups holding its responses (response ids
-- are a BIGINT zonemap a filter can prune; run_id strings with long common prefixes are not).
-- The figures stored per run (tables *_stored, e.g. wemath_step_accuracy_stored) count only
-- while figures_version = version; otherwise the figure views compute the run live.
CREATE TABLE IF NOT EXISTS run_data (
    run_id             VARCHAR PRIMARY KEY,
    first_response_id  BIGINT NOT NULL,
    last_response_id   BIGINT NOT NULL,
    version            BIGINT NOT NULL,    -- +1 at every write of the run's responses, verdicts, probe scores
    figures_version    BIGINT              -- the version its stored figures were computed at
);

-- The run card (mathprobe/runs/card.py): what only the run itself knew, recorded when it ran -- the
-- mathprobe version, the data files and their hashes, the prompts' hash, seeds, concurrency,
-- the imported file -- beside what the store can always tell (counts, tokens, cost, graders),
-- which `mathprobe card` reads live. NULL for runs made before run cards.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS card JSON;
COMMENT ON COLUMN runs.card IS 'The run card''s recorded facts (JSON): mathprobe version, data files with SHA-256, prompt hashes, generation and sampling settings, seeds, concurrency, sessions (each start or resume), an import''s file and format; never a secret. NULL for runs made before run cards; mathprobe card adds the live counts.';

-- The model the server says answered (the `model` field of an OpenAI or Anthropic response,
-- e.g. a dated snapshot behind an alias), where the API gives one.
ALTER TABLE responses ADD COLUMN IF NOT EXISTS served_model VARCHAR;
COMMENT ON COLUMN responses.served_model IS 'The model the server reported for this response (an OpenAI or Anthropic response''s model field, e.g. the dated snapshot behind an alias); NULL where the API gives none or for responses stored before it was recorded.';

-- A reasoning model's reasoning, apart from its answer (`response`, what graders and judges
-- see), and the tokens it took where the API reports them (mathprobe/backends/reasoning.py).
ALTER TABLE responses ADD COLUMN IF NOT EXISTS reasoning VARCHAR;
COMMENT ON COLUMN responses.reasoning IS 'A reasoning model''s reasoning, stored apart from its answer (response): OpenAI-compatible servers'' reasoning_content, a leading <think>...</think> block, or Anthropic''s thinking blocks; never graded. NULL where the reply showed none (OpenAI''s o-series and gpt-5 keep theirs hidden: see reasoning_tokens).';
ALTER TABLE responses ADD COLUMN IF NOT EXISTS reasoning_tokens BIGINT;
COMMENT ON COLUMN responses.reasoning_tokens IS 'Tokens the model spent reasoning, as the API reports them (OpenAI usage.completion_tokens_details.reasoning_tokens; Anthropic usage.output_tokens_details.thinking_tokens where given); they are part of output_tokens and priced as output. NULL where the API does not say (vLLM, SGLang, Anthropic without the breakdown).';
