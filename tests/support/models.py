"""A scripted chat model for tests, and readers for the prompts it saw.

The built-in fake chat models drop tool calls when streaming and do not bind tools; this one is a
`PolicyChatModel`, so it streams words and keeps tool calls like the real ones.
"""
from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import Field

from graph.models.demo import DemoChatModel
from graph.models.policy import PolicyChatModel
from graph.models.registry import ModelRegistry

# script(persona, messages, tools) -> the reply, or None for the demo model's
Script = Callable[[str | None, list[BaseMessage], list[dict]], AIMessage | None]


class ScriptedChatModel(PolicyChatModel):
    """A test model: `script(persona, messages, tools)` decides the reply; every call is recorded
    with its start and end time (for overlap checks) and the prompt it saw."""

    script: Script | None = None
    sleep_s: float = 0.0
    calls: list = Field(default_factory=list)

    async def reply(self, messages: list[BaseMessage], *, persona: str | None, tools: list[dict],
                    tool_choice: Any) -> AIMessage:
        start = time.monotonic()
        if self.sleep_s:
            await asyncio.sleep(self.sleep_s)
        msg = self.script(persona, messages, tools) if self.script else None
        if inspect.isawaitable(msg):  # a script may be a coroutine (to post a note, say)
            msg = await msg
        if msg is None:
            msg = await DemoChatModel().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)
        self.calls.append({"persona": persona, "messages": messages, "tools": [t["function"]["name"] for t in tools],
                           "start": start, "end": time.monotonic()})
        return msg


def scripted_models(model: PolicyChatModel) -> ModelRegistry:
    """Every persona, quick and deep, on `model`."""
    return ModelRegistry.fixed(model)


def system_text(messages: Iterable[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage))


def human_text(messages: Iterable[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages if isinstance(m, HumanMessage))


class HeldTurn:
    """A script that holds `persona`'s first model call until `release()`, so a test can act
    mid-run (post a note, open another window): `await held.reached()` waits for the hold."""

    def __init__(self, persona: str, timeout_s: float = 60) -> None:
        self.persona, self.timeout_s = persona, timeout_s
        self.started, self.released = asyncio.Event(), asyncio.Event()

    async def __call__(self, persona: str | None, messages: Any, tools: Any) -> None:
        if persona == self.persona and not self.started.is_set():
            self.started.set()
            await asyncio.wait_for(self.released.wait(), self.timeout_s)

    @property
    def models(self) -> ModelRegistry:
        return scripted_models(ScriptedChatModel(script=self))

    async def reached(self) -> None:
        await asyncio.wait_for(self.started.wait(), self.timeout_s)

    def release(self) -> None:
        self.released.set()
