-- The ids of responses (responses.response_id: increasing, so the newest response of an item
-- is the one with the largest id). A DuckLake store has no sequences: its ids come from
-- lake_writes (mathprobe/store/lake.py).
CREATE SEQUENCE IF NOT EXISTS response_seq;
