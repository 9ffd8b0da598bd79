"""The desk's graph for LangGraph Server: `langgraph.json` serves `graph.server:graph` as `desk`.

The server brings its own persistence: it copies this graph with its checkpointer and store for
every run, and refuses (in `langgraph dev`) a graph compiled with either. So the graph is built
here without them, from the same Settings, model registry and vendor as the chat and the CLI;
with no key it is the demo model on synthetic data.

Interjections go through the server's store API into the thread's inbox, which the next speaker
reads (graph/inbox.py): `note_item` is the exact item to `client.store.put_item`.
"""
from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, NamedTuple

from langgraph.graph.state import CompiledStateGraph

from graph.builder import build_graph
from graph.data import make_vendor
from graph.inbox import MAX_NOTES
from graph.models.registry import ModelRegistry
from graph.request import parse_request
from graph.settings import Settings


def make_graph(settings: Settings | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled desk without a checkpointer or store (the server supplies both)."""
    settings = settings or Settings()
    # The coordinator's tables (companies, NYSE holidays) load from files: once here, at import,
    # not in the first run, where the server's event loop would block on them.
    parse_request("should I buy NVDA today?", date.today())
    return build_graph(settings, models=ModelRegistry(settings), vendor=make_vendor(settings))


class NoteItem(NamedTuple):
    """A store item: `client.store.put_item(*item)` (its namespace argument is positional-only)."""
    namespace: list[str]
    key: str
    value: dict[str, Any]


def note_item(thread_id: str, existing: list[dict[str, Any]], text: str) -> NoteItem:
    """The item that posts `text` to a thread's inbox, numbered after the `existing` notes' values
    (what `client.store.search_items(["inbox", thread_id], limit=MAX_NOTES)` returned). Same
    namespace, key and value as graph/inbox.py's Inbox.post; one poster per thread at a time, like it."""
    seq = max((int(v["seq"]) for v in existing), default=0) + 1
    return NoteItem(["inbox", thread_id], f"{seq:08d}",
                    {"seq": seq, "text": text, "posted": datetime.now(UTC).isoformat()})


__all__ = ["MAX_NOTES", "NoteItem", "graph", "make_graph", "note_item"]

graph = make_graph()
