"""Moved to benchmarks/support/processes.py (the benchmarks end servers too); re-exported here."""
from benchmarks.support.processes import end_group

__all__ = ["end_group"]
