"""Moved to benchmarks/support/ports.py (the benchmarks start servers too); re-exported here."""
from benchmarks.support.ports import free_port

__all__ = ["free_port"]
