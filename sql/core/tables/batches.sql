-- The batches runs handed to a service's batch API (--batch, docs/batches.md): one row per
-- submission, written before the service is asked and given the service's batch id as soon as
-- it answers, so a command killed at any moment finds every batch it paid for again: the same
-- command resumes polling and never submits an item twice. No column's default calls a
-- function (duckdb 1.5.5 cannot replay a commented table's such default from its WAL):
-- the store writes every timestamp itself.
CREATE TABLE IF NOT EXISTS batches (
    submission     VARCHAR PRIMARY KEY,
    run_id         VARCHAR NOT NULL,
    backend        VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    endpoint       VARCHAR NOT NULL,
    batch_id       VARCHAR,
    input_file_id  VARCHAR,
    attempt        INTEGER NOT NULL,
    n_requests     INTEGER NOT NULL,
    status         VARCHAR NOT NULL,
    n_done         INTEGER,
    n_failed       INTEGER,
    error          VARCHAR,
    submitted_at   TIMESTAMP NOT NULL,
    polled_at      TIMESTAMP,
    ended_at       TIMESTAMP,
    collected_at   TIMESTAMP
);
COMMENT ON TABLE batches IS $$One row per batch a run handed to a service's batch API (--batch: OpenAI's Batch API, Anthropic's Message Batches; docs/batches.md), written before the service was asked, so a command killed at any moment resumes polling its batches and never submits an item twice. Its requests are in batch_requests.$$;
COMMENT ON COLUMN batches.submission IS $$mathprobe's name for the submission (sent to OpenAI as the batch's metadata mathprobe_submission, so a batch whose id was never stored is found again).$$;
COMMENT ON COLUMN batches.run_id IS $$The run whose requests the batch holds (runs.run_id; a judge's run for a judge's batch).$$;
COMMENT ON COLUMN batches.backend IS $$The backend kind whose batch API took it: openai or anthropic.$$;
COMMENT ON COLUMN batches.model IS $$BACKEND:NAME of the model asked.$$;
COMMENT ON COLUMN batches.endpoint IS $$The service's base URL it was sent to: a resumed run must poll the same one (OPENAI_BASE_URL, ANTHROPIC_BASE_URL).$$;
COMMENT ON COLUMN batches.batch_id IS $$The service's id of the batch (batch_..., msgbatch_...); NULL while the service has not confirmed it (a command that died then is looked for by submission, else the batch is void and its requests asked again).$$;
COMMENT ON COLUMN batches.input_file_id IS $$The uploaded JSONL file the batch reads (OpenAI); NULL for Anthropic, which takes the requests in the call.$$;
COMMENT ON COLUMN batches.attempt IS $$1 for the first batch of its requests; 2, 3, ... for a batch of requests an earlier one did not answer (expired, canceled, the service's own failure).$$;
COMMENT ON COLUMN batches.n_requests IS $$Requests in the batch.$$;
COMMENT ON COLUMN batches.status IS $$submitting (not yet confirmed by the service), accepted (confirmed, not yet polled), then the service's last word (OpenAI: validating, in_progress, finalizing, completed, expired, failed, cancelling, cancelled; Anthropic: in_progress, canceling, ended), or void (never accepted).$$;
COMMENT ON COLUMN batches.n_done IS $$Requests answered, as the service last counted them (OpenAI completed, Anthropic succeeded).$$;
COMMENT ON COLUMN batches.n_failed IS $$Requests not answered, as the service last counted them (OpenAI failed; Anthropic errored, canceled and expired).$$;
COMMENT ON COLUMN batches.error IS $$Why the batch as a whole failed (OpenAI's validation errors), or why it is void; NULL otherwise.$$;
COMMENT ON COLUMN batches.submitted_at IS $$When the submission was written, just before the service was asked (UTC).$$;
COMMENT ON COLUMN batches.polled_at IS $$When the service was last asked about the batch (UTC).$$;
COMMENT ON COLUMN batches.ended_at IS $$When it was first seen ended (UTC): every request answered, failed or expired.$$;
COMMENT ON COLUMN batches.collected_at IS $$When its results were all stored in responses and its unanswered requests batched again (UTC); NULL while the batch is open.$$;