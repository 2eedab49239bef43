-- One row per evaluation run. Responses are append-only history (responses); verdicts are
-- derived from them and may be recomputed (verdicts).
CREATE TABLE IF NOT EXISTS runs (
    run_id       VARCHAR PRIMARY KEY,
    benchmark    VARCHAR NOT NULL,
    model        VARCHAR NOT NULL,
    backend      VARCHAR NOT NULL,
    setting      VARCHAR NOT NULL,
    params       JSON,
    started_at   TIMESTAMP,
    finished_at  TIMESTAMP,
    status       VARCHAR NOT NULL,          -- running | completed | incomplete | stopped_max_cost | interrupted | failed
    cost_usd     DOUBLE DEFAULT 0,
    n_items      INTEGER                    -- items the run covers (after --limit)
);

-- The Prefect flow run that last worked on the run: marked Crashed at the next start if its
-- process died (kill -9) and left the run 'running'.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS flow_run_id VARCHAR;

-- The run card (mathprobe/runs/card.py): what only the run itself knew, recorded when it ran -- the
-- mathprobe version, the data files and their hashes, the prompts' hash, seeds, concurrency,
-- the imported file -- beside what the store can always tell (counts, tokens, cost, graders),
-- which `mathprobe card` reads live. NULL for runs made before run cards.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS card JSON;

-- How many answers the run asks of each item (--samples K, docs/sampling.md): 1 for a run of one
-- sample and for every run made before samples existed.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS samples INTEGER DEFAULT 1;

COMMENT ON TABLE runs IS $$One row per evaluation run: what was asked of which model, and its state. Imports and probe runs are runs too.$$;
COMMENT ON COLUMN runs.run_id IS $$The run's id, chosen by the user (--run-id); reusing it resumes the run.$$;
COMMENT ON COLUMN runs.benchmark IS $$The benchmark evaluated (its registered name).$$;
COMMENT ON COLUMN runs.model IS $$BACKEND:NAME of the model (e.g. openai:gpt-4o, baseline:random; import:<file> for imported responses).$$;
COMMENT ON COLUMN runs.backend IS $$The backend kind: openai, anthropic, triton, baseline, replay or import.$$;
COMMENT ON COLUMN runs.setting IS $$The prompt setting (e.g. plain, kca, zs, fs, text+ocr/clp), or the probe.$$;
COMMENT ON COLUMN runs.params IS $$Generation parameters as JSON (temperature, max_tokens, ...), part of the run's identity.$$;
COMMENT ON COLUMN runs.started_at IS $$When the run was first started (UTC).$$;
COMMENT ON COLUMN runs.finished_at IS $$When it last finished (UTC); NULL while running.$$;
COMMENT ON COLUMN runs.status IS $$running, completed, incomplete (some calls failed), interrupted (stopped: Ctrl-C, SIGTERM, a dead process), failed (stopped by an error, e.g. data that went away) or stopped_max_cost.$$;
COMMENT ON COLUMN runs.cost_usd IS $$What the run's responses cost, in USD (from the price table).$$;
COMMENT ON COLUMN runs.n_items IS $$Items the run covers (after --limit).$$;
COMMENT ON COLUMN runs.flow_run_id IS $$The Prefect flow run that last worked on this run (NULL outside Prefect); a run left running by a dead process is marked interrupted, and this flow run Crashed, at the next start.$$;
COMMENT ON COLUMN runs.card IS $$The run card's recorded facts (JSON): mathprobe version, data files with SHA-256, prompt hashes, generation and sampling settings, seeds, concurrency, sessions (each start or resume), an import's file and format; never a secret. NULL for runs made before run cards; mathprobe card adds the live counts.$$;
COMMENT ON COLUMN runs.samples IS $$Answers asked of each item (--samples K; samples 0 .. K-1 in responses.sample); 1 for a run of one sample. A resumed run may raise it (the missing samples are asked), never lower it.$$;
