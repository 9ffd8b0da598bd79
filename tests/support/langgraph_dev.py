"""In benchmarks/support/langgraph_dev.py (the benchmarks start `langgraph dev` too); re-exported here."""
from benchmarks.support.langgraph_dev import LangGraphDev

__all__ = ["LangGraphDev"]
