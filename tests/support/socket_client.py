"""Moved to benchmarks/support/socket_client.py (the benchmarks talk to the chat the same way);
re-exported here."""
from benchmarks.support.socket_client import RECORDED_EVENTS, DeskClient, runs_finished

__all__ = ["RECORDED_EVENTS", "DeskClient", "runs_finished"]
