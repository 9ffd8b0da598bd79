"""The desk's one composition root: opened once from Settings, used by the CLI, the chat,
the benchmarks and the tests.

It holds what a process shares — the model registry, the market-data vendor, the checkpointer,
the compiled graph — and how a run is configured (its config and context). Opened inside the
running event loop, because the SQLite checkpointer must be.
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from .builder import build_graph
from .checkpoint import open_checkpointer
from .context import DeskContext
from .data import make_vendor
from .data.vendor import Vendor
from .events import Event, desk_events
from .inbox import Inbox
from .models.registry import ModelRegistry
from .nodes.analysts import Toolkit
from .plan import RunPlan
from .request import parse_request
from .settings import Settings

# A full analysis is ~20 steps per debate round; the default 25 would stop a 3-round desk.
RECURSION_LIMIT = 200


@dataclass
class DeskRuntime:
    settings: Settings
    models: ModelRegistry
    vendor: Vendor
    checkpointer: BaseCheckpointSaver[Any]
    graph: CompiledStateGraph[Any, Any, Any, Any]

    @classmethod
    @asynccontextmanager
    async def open(cls, settings: Settings | None = None, *, models: ModelRegistry | None = None,
                   vendor: Vendor | None = None, toolkit: Toolkit | None = None,
                   checkpointer: BaseCheckpointSaver[Any] | None = None) -> AsyncIterator[DeskRuntime]:
        """Models, vendor and checkpointer from the settings unless given (tests and benchmarks
        pass their own); the graph compiled once over them."""
        settings = settings or Settings()
        async with AsyncExitStack() as stack:
            saver: BaseCheckpointSaver[Any]
            if checkpointer is not None:
                saver = checkpointer
            else:
                saver = await stack.enter_async_context(open_checkpointer(settings))
            runtime = cls.build(settings, saver, models=models, vendor=vendor, toolkit=toolkit)
            runtime.warm_up()
            yield runtime

    @classmethod
    def build(cls, settings: Settings, checkpointer: BaseCheckpointSaver[Any], *,
              models: ModelRegistry | None = None, vendor: Vendor | None = None,
              toolkit: Toolkit | None = None) -> DeskRuntime:
        """The runtime over a checkpointer the caller owns (an in-memory one in tests)."""
        models = models or ModelRegistry(settings)
        vendor = vendor or make_vendor(settings)
        graph = build_graph(settings, models=models, vendor=vendor, toolkit=toolkit, checkpointer=checkpointer)
        return cls(settings, models, vendor, checkpointer, graph)

    @staticmethod
    def warm_up() -> None:
        """Load the coordinator's tables (companies, NYSE holidays) before the first user waits."""
        parse_request("should I buy NVDA today?", date.today())

    # -- one run -------------------------------------------------------------

    @staticmethod
    def config(thread_id: str, callbacks: list[BaseCallbackHandler] | None = None) -> RunnableConfig:
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}
        if callbacks:
            config["callbacks"] = callbacks
        return config

    def plan(self, *, analysts: list[str] | None = None, debate_rounds: int | None = None,
             risk_rounds: int | None = None) -> RunPlan:
        return RunPlan.of(self.settings, analysts=analysts, debate_rounds=debate_rounds, risk_rounds=risk_rounds)

    @staticmethod
    def context(*, inbox: Inbox | None = None, today: date | None = None, quick_model: str | None = None,
                deep_model: str | None = None) -> DeskContext:
        return DeskContext(inbox=inbox or Inbox(), today=today, quick_model=quick_model, deep_model=deep_model)

    def events(self, graph_input: Any, thread_id: str, context: DeskContext,
               callbacks: list[BaseCallbackHandler] | None = None) -> AsyncIterator[Event]:
        return desk_events(self.graph, graph_input, self.config(thread_id, callbacks), context)

    async def state(self, thread_id: str) -> dict[str, Any]:
        return (await self.graph.aget_state(self.config(thread_id))).values or {}

    async def delete_thread(self, thread_id: str) -> None:
        """Forget a thread: every checkpoint and pending write of it."""
        await self.checkpointer.adelete_thread(thread_id)
