"""A free loopback TCP port, for the servers mathprobe starts beside itself (Triton, the local
Prefect server, test and benchmark servers): the OS picks one not in use."""
from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
