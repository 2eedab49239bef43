"""`python -m mathprobe ...` is the `mathprobe` command."""
from mathprobe.flows.launch import main

main()
