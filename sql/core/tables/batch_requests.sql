-- The requests of each batch (sql/core/batches.sql): which item and request each custom_id
-- stands for, and what became of it. Written with its batch, before the service is asked.
CREATE TABLE IF NOT EXISTS batch_requests (
    submission    VARCHAR NOT NULL,
    custom_id     VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    item_id       VARCHAR NOT NULL,
    request_hash  VARCHAR NOT NULL,
    state         VARCHAR NOT NULL,
    PRIMARY KEY (submission, custom_id)
);
-- The sample of the item it asks (responses.sample); 0 for a run of one sample.
ALTER TABLE batch_requests ADD COLUMN IF NOT EXISTS sample INTEGER DEFAULT 0;

COMMENT ON TABLE batch_requests IS $$The requests of each batch (batches): which item and request each custom_id stands for, and what became of it; one row per request per batch it went in.$$;
COMMENT ON COLUMN batch_requests.submission IS $$The batch it went in (batches.submission).$$;
COMMENT ON COLUMN batch_requests.custom_id IS $$Its name in the batch: a digest of the item id, then the request hash (custom_ids must match ^[a-zA-Z0-9_-]{1,64}$ at Anthropic); the results are matched to it, in any order.$$;
COMMENT ON COLUMN batch_requests.run_id IS $$The run it belongs to (runs.run_id).$$;
COMMENT ON COLUMN batch_requests.item_id IS $$The item it asks about (items.item_id; for a judge, the judged answer's item).$$;
COMMENT ON COLUMN batch_requests.request_hash IS $$The content hash of the request (responses.request_hash of its answer).$$;
COMMENT ON COLUMN batch_requests.state IS $$pending (its batch has not answered it yet), answered (its result is in responses, or the item was answered meanwhile), rebatched (not answered, asked again in a later batch) or void (its batch was never accepted).$$;
COMMENT ON COLUMN batch_requests.sample IS $$Which of the item's samples it asks (responses.sample of its answer; 0 for a run of one sample).$$;
