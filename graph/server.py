"""The desk's graph for LangGraph Server: `langgraph.json` serves `graph.server:graph` as `desk`.

The server brings its own persistence: it copies this graph with its checkpointer and store for
every run, and refuses (in `langgraph dev`) a graph compiled with either. So the graph is built
here without them, from the same Settings, model registry and vendor as the chat and the CLI;
with no key it is the demo model on synthetic data.

Interjections reach a run through the server's store API: graph/notes/address.py's `note_item` is
the item to `client.store.put_item` into the thread's inbox, which the next speaker reads.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from graph.core.settings import Settings
from graph.data import make_vendor
from graph.models.registry import ModelRegistry
from graph.nodes.builder import build_graph
from graph.request import parse_request


def make_graph(settings: Settings | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled desk without a checkpointer or store (the server supplies both)."""
    settings = settings or Settings()
    # The coordinator's tables (companies, NYSE holidays) load from files: once here, at import,
    # not in the first run, where the server's event loop would block on them.
    parse_request("should I buy NVDA today?", date.today())
    return build_graph(settings, models=ModelRegistry(settings), vendor=make_vendor(settings))


graph = make_graph()
