"""The `mathprobe` command line: one module per command (run, report, compare, ...), the app that
assembles them (main), the options and helpers they share (common) and how a command ends
(exits). Commands check their arguments before they import a flow (flows/): starting Prefect
takes seconds, a typo must not wait for it. The entry point that may hand a command to the warm
runner is mathprobe.warm.launch."""
