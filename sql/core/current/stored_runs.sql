-- The runs whose stored figures are current: computed at the run's present data version.
CREATE OR REPLACE VIEW stored_runs AS
SELECT run_id FROM run_data WHERE figures_version = version;

COMMENT ON VIEW stored_runs IS $$The runs whose stored figures are current (run_data.figures_version = version): figure views read their stored rows and compute only the other runs.$$;
