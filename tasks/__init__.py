"""The Prefect tasks the flows (flows/) call: prepare a run, ask a shard of its questions, grade,
judge, run a probe. Each is thin: it opens the store and calls the library (mathprobe/runs/),
so what a task does is tested where the library is, and the task adds only what Prefect shows
(its name in the UI, its log lines, its result)."""
