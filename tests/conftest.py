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

from graph.builder import build_graph
from graph.checkpoint import SERDE
from graph.context import DeskContext
from graph.demo_model import DemoChatModel
from graph.events import NodeDone, desk_events
from graph.inbox import Inbox
from graph.llm import Models
from graph.policy_model import PolicyChatModel
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


def scripted_models(model: PolicyChatModel) -> Models:
    return Models(quick=model, deep=model, live=False, notice="test mode")


def spoken(events) -> list[str]:
    """Personas in the order their turns finished (Desk included)."""
    out = []
    for ev in events:
        if isinstance(ev, NodeDone):
            for m in ev.update.get("messages") or []:
                if getattr(m, "name", None):
                    out.append(m.name)
    return out


class Desk:
    """A compiled graph with a thread, an inbox, and the events of each run."""

    def __init__(self, settings: Settings, model: PolicyChatModel | None = None, checkpointer=None,
                 vendor=None, thread: str | None = None):
        self.model = model or DemoChatModel(delay_ms=0)
        self.graph = build_graph(settings, checkpointer=checkpointer or InMemorySaver(serde=SERDE),
                                 models=scripted_models(self.model), vendor=vendor)
        self.thread = thread or uuid.uuid4().hex
        self.inbox = Inbox()
        self.config = {"configurable": {"thread_id": self.thread}, "recursion_limit": 200}

    async def ask(self, text: str, **extra) -> list:
        events = []
        async for ev in desk_events(self.graph, {"messages": [HumanMessage(text)], **extra}, self.config,
                                    DeskContext(inbox=self.inbox, today=TODAY)):
            events.append(ev)
        return events

    async def state(self) -> dict:
        return (await self.graph.aget_state(self.config)).values


@pytest.fixture
def desk_factory(settings):
    def make(model=None, checkpointer=None, vendor=None, thread=None, **overrides) -> Desk:
        s = settings.model_copy(update=overrides) if overrides else settings
        return Desk(s, model, checkpointer, vendor, thread)
    return make


__all__ = ["ScriptedChatModel", "TODAY", "system_text", "human_text", "AIMessage", "ToolMessage"]
