"""Moved to benchmarks/support/env.py (the benchmarks start child processes too); re-exported here."""
from benchmarks.support.env import MODEL_ENV_VARS, TEST_PACE, demo_env

__all__ = ["MODEL_ENV_VARS", "TEST_PACE", "demo_env"]
