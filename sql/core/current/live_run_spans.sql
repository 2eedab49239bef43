-- Per run, the responses a live figure must read: its span while its stored figures are not
-- current; otherwise an empty span at the newest id (newest .. newest - 1), so a scan for it,
-- or for a store whose figures are all stored, reads at most the last row group (a run left
-- out instead would leave the scan unpruned).
-- (The newest id from one subquery joined in: cheaper to plan than one per column, and every
-- live figure view plans this view.)
CREATE OR REPLACE VIEW live_run_spans AS
SELECT d.run_id,
       CASE WHEN d.figures_version IS DISTINCT FROM d.version THEN d.first_response_id
            ELSE n.newest END                                              AS first_response_id,
       CASE WHEN d.figures_version IS DISTINCT FROM d.version THEN d.last_response_id
            ELSE n.newest - 1 END                                          AS last_response_id
FROM run_data d
CROSS JOIN (SELECT max(last_response_id) AS newest FROM run_data) n;

COMMENT ON VIEW live_run_spans IS $$Per run, the response ids a live figure must read: the run's span while its stored figures are not current, else an empty span (so the live half of a figure view with stored rows reads nothing for it).$$;
COMMENT ON COLUMN live_run_spans.first_response_id IS $$First response id to read (run_data.first_response_id, or past the last one when the run's figures are stored).$$;
COMMENT ON COLUMN live_run_spans.last_response_id IS $$Last response id to read.$$;
