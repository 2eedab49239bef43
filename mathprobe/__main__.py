"""`python -m mathprobe ...` is the `mathprobe` command."""
from mathprobe.warm.launch import main

main()
