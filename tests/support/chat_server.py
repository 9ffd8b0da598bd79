"""Moved to benchmarks/support/chat_server.py (the benchmarks start the chat server too);
re-exported here."""
from benchmarks.support.chat_server import ROOT, Server

__all__ = ["ROOT", "Server"]
