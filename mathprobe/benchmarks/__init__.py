"""mathprobe's built-in benchmarks, one package each (WE-MATH, ConceptMath, CMMaTH). Each is a
`mathprobe.contract.Benchmark` registered under the `mathprobe.benchmarks` entry point
(pyproject.toml), exactly as a separately installed benchmark would be; nothing here is
imported by the core."""
