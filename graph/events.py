"""The graph's stream as typed events, for any consumer (the CLI, the chat, benchmarks)."""
from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessageChunk


@dataclass(frozen=True)
class Token:
    persona: str
    text: str


@dataclass(frozen=True)
class Custom:
    """What nodes write themselves: tool_start, tool_end, intervention, say."""
    event: str
    persona: str
    data: dict


@dataclass(frozen=True)
class NodeDone:
    node: str
    update: dict


Event = Token | Custom | NodeDone


async def desk_events(graph, graph_input: Any, config: dict, context: Any) -> AsyncIterator[Event]:
    async for _ns, mode, payload in graph.astream(
        graph_input, config, context=context, stream_mode=["messages", "updates", "custom"], subgraphs=True
    ):
        if mode == "messages":
            chunk, meta = payload
            persona = meta.get("persona")
            if persona and isinstance(chunk, AIMessageChunk) and isinstance(chunk.content, str) and chunk.content:
                yield Token(persona, chunk.content)
        elif mode == "custom" and isinstance(payload, dict):
            yield Custom(payload.get("event", ""), payload.get("persona", ""), payload)
        elif mode == "updates" and isinstance(payload, dict):
            for node, update in payload.items():
                if isinstance(update, dict):
                    yield NodeDone(node, update)
