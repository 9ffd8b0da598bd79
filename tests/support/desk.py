"""The compiled desk in-process: a thread, an inbox and the events of each run."""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore

from graph.core.events import Event, NodeDone
from graph.core.settings import Settings
from graph.data.vendor import Vendor
from graph.models.demo import DemoChatModel
from graph.models.policy import PolicyChatModel
from graph.models.registry import ModelRegistry
from graph.persistence.checkpoint import SERDE
from graph.runtime.desk import DeskRuntime

if TYPE_CHECKING:  # the fake server's imports (uvicorn) only where it runs
    from .fake_openai import FakeOpenAI

TODAY = date(2024, 5, 6)  # a Monday; "today" requests resolve to it


def spoken(events: Iterable[Event]) -> list[str]:
    """Personas in the order their turns finished (Desk included)."""
    return [ev.spoken.name for ev in events if isinstance(ev, NodeDone) and ev.spoken is not None and ev.spoken.name]


class Desk:
    """A compiled graph with a thread (its inbox in the runtime's store) and the events of each run."""

    def __init__(self, settings: Settings, model: PolicyChatModel | None = None,
                 checkpointer: BaseCheckpointSaver | None = None, vendor: Vendor | None = None,
                 thread: str | None = None, models: ModelRegistry | None = None,
                 store: BaseStore | None = None) -> None:
        self.model = model or DemoChatModel(delay_ms=0)
        self.models = models or ModelRegistry.fixed(self.model, settings)  # caps and budget from `settings`
        self.runtime = DeskRuntime.build(settings, checkpointer or InMemorySaver(serde=SERDE), store,
                                         models=self.models, vendor=vendor)
        self.graph = self.runtime.graph
        self.thread = thread or uuid.uuid4().hex
        self.config = self.runtime.config(self.thread)

    async def post(self, text: str) -> int:
        """Interject on the thread, as the chat does; the note's number."""
        return (await self.runtime.inbox.post(self.thread, text)).seq

    async def ask(self, text: str | None, **extra: Any) -> list[Event]:
        """A new message (None: resume the interrupted run)."""
        graph_input = None if text is None else {"messages": [HumanMessage(text)], **extra}
        return [ev async for ev in self.runtime.events(graph_input, self.thread, self.runtime.context(today=TODAY))]

    async def state(self) -> dict[str, Any]:
        return await self.runtime.state(self.thread)


def live_settings(settings: Settings, server: FakeOpenAI) -> Settings:
    """`settings` in live mode, on the fake OpenAI server (synthetic data, no retries)."""
    return settings.model_copy(update={"openai_base_url": server.base_url, "quick_model": "quick-x",
                                       "deep_model": "deep-x", "data_vendor": "synthetic", "request_timeout": 20,
                                       "max_retries": 0})


class LiveDesk(Desk):
    """The desk on the models `settings` configure (ChatOpenAI), not a scripted one."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, models=ModelRegistry(settings))
