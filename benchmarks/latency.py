"""A latency model and latency tools: known costs, so the ideal wall time can be computed.

The model is the demo policy (it really calls the tools and writes from their results)
paced by a fixed time to first token and a fixed time per word; each tool call takes a
fixed time and returns the real tool's answer, computed once and then replayed, so the
vendor's own work does not blur what is being measured: the desk's overhead.
"""
from __future__ import annotations

import asyncio
import json
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field

from graph import DemoChatModel, Vendor, make_toolkit, streamed_words

# The persona the policy was told it answers as in this call: `reply` is given it inside the
# call's own stream (the same task), before the first piece, and the stream reads it back.
_SPEAKER: ContextVar[str | None] = ContextVar("latency_model_speaker", default=None)


@dataclass(frozen=True)
class Latency:
    first_token_ms: float
    per_token_ms: float
    tool_ms: float


@dataclass(frozen=True)
class Call:
    persona: str
    words: int
    tool_calls: int
    start: float = 0.0
    end: float = 0.0


class LatencyModel(DemoChatModel):
    """The demo policy with a fixed latency, recording every call it answers."""

    calls: list[Call] = Field(default_factory=list)

    def __init__(self, latency: Latency, **kw):
        # Each call on its own deadlines, not the demo's common clock: the ideal (benchmarks/ideal.py) counts a
        # call as its first token and its words, so a wait for the clock's next tick would count as the desk's.
        super().__init__(first_token_ms=latency.first_token_ms, delay_ms=latency.per_token_ms, calls=[],
                         on_clock=False, **kw)

    async def reply(self, messages: list[BaseMessage], *, persona: str | None, tools: list[dict],
                    tool_choice: Any) -> AIMessage:
        _SPEAKER.set(persona)
        return await super().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        start, words, tool_calls, speaker = time.perf_counter(), 0, 0, None
        _SPEAKER.set(None)
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            if speaker is None:  # the policy was told before its first piece
                speaker = _SPEAKER.get() or "?"
            if chunk.message.content:
                words += 1
            tool_calls += len(getattr(chunk.message, "tool_call_chunks", []))
            yield chunk
        self.calls.append(Call(speaker or "?", words, tool_calls, start, time.perf_counter()))

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
        # Structured-output calls are not streamed; they still cost a model call.
        start = time.perf_counter()
        _SPEAKER.set(None)
        result = await super()._agenerate(messages, stop, run_manager, **kwargs)
        msg = result.generations[0].message
        text = msg.content if isinstance(msg.content, str) else ""
        n = len(streamed_words(text))  # a non-streamed call is paced as if streamed
        due = self.first_token_ms + max(0, n - 1) * self.delay_ms
        await asyncio.sleep(max(0.0, start + due / 1000 - time.perf_counter()))
        self.calls.append(Call(_SPEAKER.get() or "?", n, len(getattr(msg, "tool_calls", [])), start,
                               time.perf_counter()))
        return result


def latency_toolkit(vendor: Vendor, tool_ms: float, replay: dict):
    """make_toolkit's tools, each taking exactly `tool_ms` and replaying its first answer."""
    def toolkit(ticker, trade_date):
        real = make_toolkit(vendor, ticker, trade_date)
        return {kind: [_slow(t, tool_ms, replay, (ticker, str(trade_date))) for t in tools]
                for kind, tools in real.items()}
    return toolkit


def _slow(tool: BaseTool, tool_ms: float, replay: dict, scope: tuple) -> StructuredTool:
    assert isinstance(tool, StructuredTool) and tool.coroutine is not None, "the desk's tools are async"
    body = tool.coroutine

    async def run(**kwargs):
        loop = asyncio.get_running_loop()
        start = loop.time()
        key = (*scope, tool.name, json.dumps(kwargs, sort_keys=True, default=str))
        if key not in replay:
            replay[key] = await body(**kwargs)
        await asyncio.sleep(max(0.0, start + tool_ms / 1000 - loop.time()))
        return replay[key]

    return StructuredTool.from_function(coroutine=run, name=tool.name, description=tool.description,
                                        args_schema=tool.args_schema, response_format="content_and_artifact")
