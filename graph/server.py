"""The desk's graph for LangGraph Server: `langgraph.json` serves `graph.server:graph` as `desk`.

The server brings its own persistence: it copies this graph with its checkpointer and store for
every run, and refuses (in `langgraph dev`) a graph compiled with either. So the graph is built
here without them, from the same Settings, model registry and vendor as the chat and the CLI;
with no key it is the demo model on synthetic data.

Interjections reach a run through the server's store API: graph/notes/address.py's `note_item` is
the item to `client.store.put_item` into the thread's inbox, which the next speaker reads.

A user's paper book lives here too, in the server's store beside the calls its runs log: `/paper start 100000`,
`/paper`, `/paper stop` sent as a run's message (graph/nodes/paper.py), the authenticated user's own.

A backtest's days run here too (graph/backtest/server_days.py): the vendor tells each failure on the
run's custom stream, so the runner in another process learns a day rested on missing data.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from langgraph.config import get_stream_writer
from langgraph.graph.state import CompiledStateGraph

from graph.backtest.metrics import curve_metrics
from graph.backtest.watch import VENDOR_FAILED, WatchedVendor
from graph.core import clock
from graph.core.settings import Settings
from graph.data import make_vendor
from graph.models.registry import ModelRegistry
from graph.nodes.builder import build_graph
from graph.request import parse_request

T = TypeVar("T")


class ReportingVendor(WatchedVendor):
    """The vendor, each failure also sent on the run's custom stream as a `vendor_failed` event (a
    backtest's runner elsewhere counts it as the in-process runner counts its watched vendor's).
    The tools call the vendor in a worker thread, which carries the run's context; the writer is
    thread-safe. Outside a run (the settlement pass at start) there is no stream: nothing is sent."""

    def _call(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except Exception as exc:
            try:
                write = get_stream_writer()
            except RuntimeError:
                write = None
            if write is not None:
                write({"event": VENDOR_FAILED, "what": what, "reason": str(exc) or type(exc).__name__})
            raise


def make_graph(settings: Settings | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled desk without a checkpointer or store (the server supplies both)."""
    settings = settings or Settings()
    # The coordinator's tables (companies, NYSE holidays) load from files: once here, at import,
    # not in the first run, where the server's event loop would block on them.
    parse_request("should I buy NVDA today?", clock.today())
    return build_graph(settings, models=ModelRegistry(settings), vendor=ReportingVendor(make_vendor(settings)),
                       paper_score=curve_metrics)


graph = make_graph()
