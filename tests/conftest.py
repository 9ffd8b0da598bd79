"""Shared fixtures: a scripted chat model that streams and keeps tool calls, and graph helpers."""
from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from datetime import date

import pytest
from pydantic import Field
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from graph.checkpoint import SERDE
from graph.demo_model import DemoChatModel
from graph.events import NodeDone
from graph.inbox import Inbox
from graph.models.registry import ModelRegistry
from graph.policy_model import PolicyChatModel
from graph.runtime import DeskRuntime
from graph.settings import Settings

TODAY = date(2024, 5, 6)  # a Monday; "today" requests resolve to it


class ScriptedChatModel(PolicyChatModel):
    """A test model: `script(persona, messages, tools)` decides the reply; every call is recorded
    with its start and end time (for overlap checks) and the prompt it saw."""

    script: Callable | None = None
    sleep_s: float = 0.0
    calls: list = Field(default_factory=list)

    async def reply(self, messages, *, persona, tools, tool_choice):
        start = time.monotonic()
        if self.sleep_s:
            await asyncio.sleep(self.sleep_s)
        msg = self.script(persona, messages, tools) if self.script else None
        if msg is None:
            msg = await DemoChatModel().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)
        self.calls.append({"persona": persona, "messages": messages, "tools": [t["function"]["name"] for t in tools],
                           "start": start, "end": time.monotonic()})
        return msg


def system_text(messages) -> str:
    return "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))


def human_text(messages) -> str:
    return "\n".join(str(m.content) for m in messages if isinstance(m, HumanMessage))


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "DESK_MODE"):
        monkeypatch.delenv(var, raising=False)
    return Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)


def scripted_models(model: PolicyChatModel) -> ModelRegistry:
    return ModelRegistry.fixed(model)


def spoken(events) -> list[str]:
    """Personas in the order their turns finished (Desk included)."""
    return [ev.spoken.name for ev in events if isinstance(ev, NodeDone) and ev.spoken is not None]


class Desk:
    """A compiled graph with a thread, an inbox, and the events of each run."""

    def __init__(self, settings: Settings, model: PolicyChatModel | None = None, checkpointer=None,
                 vendor=None, thread: str | None = None, models: ModelRegistry | None = None):
        self.model = model or DemoChatModel(delay_ms=0)
        self.models = models or scripted_models(self.model)
        self.runtime = DeskRuntime.build(settings, checkpointer or InMemorySaver(serde=SERDE),
                                         models=self.models, vendor=vendor)
        self.graph = self.runtime.graph
        self.thread = thread or uuid.uuid4().hex
        self.inbox = Inbox()
        self.config = self.runtime.config(self.thread)

    async def ask(self, text: str, **extra) -> list:
        context = self.runtime.context(inbox=self.inbox, today=TODAY)
        return [ev async for ev in self.runtime.events({"messages": [HumanMessage(text)], **extra}, self.thread,
                                                      context)]

    async def state(self) -> dict:
        return await self.runtime.state(self.thread)


@pytest.fixture
def desk_factory(settings):
    def make(model=None, checkpointer=None, vendor=None, thread=None, **overrides) -> Desk:
        s = settings.model_copy(update=overrides) if overrides else settings
        return Desk(s, model, checkpointer, vendor, thread)
    return make


__all__ = ["ScriptedChatModel", "TODAY", "system_text", "human_text", "AIMessage", "ToolMessage"]
