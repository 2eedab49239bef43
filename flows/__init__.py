"""Prefect flows and the `mathprobe` command line. Flows wire tasks; they hold no benchmark logic."""
