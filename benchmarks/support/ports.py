"""Loopback ports for the servers the tests and the benchmarks start."""
from __future__ import annotations

import socket


def free_port() -> int:
    """A port nobody listens on right now (the OS picks it; another process may take it later)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
