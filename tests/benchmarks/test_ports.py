"""A port the tests' servers get is never handed out twice in one process: langchain-openai keeps one httpx
client per base URL for the process, so a later fake server on an earlier one's port met a pool from a
closed event loop ("Event loop is closed", seen in CI)."""
from benchmarks.support.ports import free_port


def test_no_port_is_handed_out_twice():
    ports = [free_port() for _ in range(200)]
    assert len(set(ports)) == len(ports)
