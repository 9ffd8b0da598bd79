"""Moved to benchmarks/support/llama_server.py (benchmarks/llama.py starts it too); re-exported here."""
from benchmarks.support.llama_server import MODEL_NAME, LlamaServer, PromptStats, missing

__all__ = ["MODEL_NAME", "LlamaServer", "PromptStats", "missing"]
