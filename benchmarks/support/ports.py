"""Loopback ports for the servers the tests and the benchmarks start."""
from __future__ import annotations

import socket
import threading

# Ports this process has handed out: never handed out again. A client library may keep a connection pool per
# address for the whole process (langchain-openai caches its httpx client by base URL), and a pool made in one
# test's event loop fails in the next ("Event loop is closed") when a later server gets the same port.
_GIVEN: set[int] = set()
_LOCK = threading.Lock()


def free_port() -> int:
    """A port nobody listens on right now and this process has not handed out before (the OS picks it;
    another process may take it later)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with _LOCK:
            if port not in _GIVEN:
                _GIVEN.add(port)
                return port
