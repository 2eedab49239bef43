"""Everything the flows call: benchmark adapters, model backends, graders and the DuckDB store."""
