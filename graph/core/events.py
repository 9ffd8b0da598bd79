"""The graph's stream as typed events, for any consumer (the CLI, the chat, benchmarks, tests).

Nodes write their own events (a tool started or finished, a note picked up, a line said) with
`emit`; on the wire they are plain dicts, so LangGraph Server can stream them too. `desk_events`
decodes the stream once, here; consumers match on types, never on strings.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from typing import Any

from langchain_core.messages import BaseMessage


@dataclass(frozen=True)
class Token:
    """A streamed piece of a persona's words."""
    persona: str
    text: str


@dataclass(frozen=True)
class ToolStarted:
    persona: str
    tool: str
    args: dict[str, Any]
    call_id: str


@dataclass(frozen=True)
class ToolFinished:
    persona: str
    tool: str
    call_id: str
    result: str

    @property
    def failed(self) -> bool:
        return self.result.startswith("no data")


@dataclass(frozen=True)
class NotePickedUp:
    """A speaker read a user's interjection at the start of its turn."""
    persona: str
    seq: int
    text: str


@dataclass(frozen=True)
class TurnRestarted:
    """A persona's model call failed after some of its words had streamed (the server cut the answer
    off, or sent nothing more for the stall timeout): the words `text` that call streamed are void.
    Consumers drop them from the persona's open turn; the call is asked again (`reason` "cut" or
    "stall"), or, its retries spent, the run stops with a sentence and resumes at this turn."""
    persona: str
    text: str
    reason: str


@dataclass(frozen=True)
class Said:
    """A whole message that is not streamed (the coordinator's answer), and the thread's language when the
    coordinator knows it ("": not said): the chat words what it attaches to the message in it."""
    persona: str
    text: str
    language: str = ""


@dataclass(frozen=True)
class AlphaCurve:
    """The track record's cumulative alpha, settle date by settle date, for a chart beside the
    record's table (graph/track/summary.py); `ticker` is '' for all of the user's calls."""
    points: list[tuple[str, float]]
    ticker: str = ""
    # The calibration of the same calls (graph/track/calibration.py calibration_payload), for its chart; None: not sent
    calibration: dict[str, Any] | None = None


@dataclass(frozen=True)
class NodeDone:
    node: str
    update: dict[str, Any]

    @property
    def spoken(self) -> BaseMessage | None:
        """The persona turn this node added to the conversation, if any."""
        messages = self.update.get("messages") or []
        last = messages[-1] if messages else None
        return last if getattr(last, "name", None) else None

    @property
    def unverified(self) -> list[str]:
        """Figures this turn cited that no tool result, report or earlier turn of the run holds
        (graph/record/figures.py; `figures.unverified_note` words them for a message)."""
        checks = self.update.get("unverified")
        return [f for figures in checks.values() for f in figures] if isinstance(checks, dict) else []


NodeEvent = ToolStarted | ToolFinished | NotePickedUp | TurnRestarted | Said | AlphaCurve
Event = Token | NodeEvent | NodeDone

_KINDS: dict[str, type[NodeEvent]] = {
    "tool_started": ToolStarted, "tool_finished": ToolFinished, "note_picked_up": NotePickedUp,
    "turn_restarted": TurnRestarted, "said": Said,
    "alpha_curve": AlphaCurve,
}
_KIND_OF = {cls: kind for kind, cls in _KINDS.items()}


def emit(writer: Callable[[Any], None] | None, event: NodeEvent) -> None:
    """Write a node's event to the custom stream (a no-op when nobody streams)."""
    if writer is not None:
        writer({"event": _KIND_OF[type(event)], **asdict(event)})


def decode(payload: object) -> NodeEvent | None:
    if not isinstance(payload, dict) or (cls := _KINDS.get(payload.get("event", ""))) is None:
        return None
    return cls(**{f.name: payload[f.name] for f in fields(cls) if f.name in payload})  # a default if not sent


# Set while `desk_events` reads a run: the speakers write their words to the custom stream themselves
# (`Words`), and LangGraph's "messages" stream is not asked for. That stream handed on every piece a
# model streamed, each its own cross-thread wake-up of the loop, queue item and waiter task; a
# deliberation streams about 900 pieces. A LangGraph Server client asks for "messages" as before.
_WORDS_WRITTEN: ContextVar[bool] = ContextVar("desk_words_written", default=False)


# How often one call's words go out as a Token event at most. A model streams a piece every few
# milliseconds; each event costs the graph's stream queue, `desk_events` and its reader (the chat's
# run loop and renderer) a pass, and the chat sends a message's words to the page only every
# STREAM_GAP_S (0.1 s) anyway. The first piece after a pause goes out at once (a turn's first word is
# not delayed), and `flush` sends what waits before the call ends.
WORDS_FRAME_S = 0.05


class Words:
    """One call's words for the graph's custom stream as Token events, at most one per WORDS_FRAME_S:
    a piece that comes after a quiet frame goes out in the next turn of the event loop, the pieces
    that come within a frame of it wait for the frame's end and go out together: the same words in
    the same order. `flush` sends what waits at once: before the call's end and before any other
    event of the speaker (a restart voids exactly the words sent before it)."""

    def __init__(self, writer: Callable[[Any], None] | None, persona: str) -> None:
        self._writer = writer  # None: nobody reads them here (add does nothing)
        self._persona = persona
        self._pending: list[str] = []
        self._due: asyncio.TimerHandle | None = None
        self._sent_at = float("-inf")  # loop time of the last event sent

    @classmethod
    def for_run(cls, writer: Callable[[Any], None] | None, persona: str) -> Words:
        """The words of `persona`'s call, written when `desk_events` reads the run (otherwise dropped:
        LangGraph's "messages" stream carries them to whoever asked)."""
        return cls(writer if persona and _WORDS_WRITTEN.get() else None, persona)

    def add(self, text: str) -> None:
        if not text or self._writer is None:
            return
        if self._due is None:
            loop = asyncio.get_running_loop()
            self._due = loop.call_at(max(loop.time(), self._sent_at + WORDS_FRAME_S), self.flush)
        self._pending.append(text)

    def flush(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None
        if self._pending and self._writer is not None:
            text = "".join(self._pending)
            self._pending.clear()
            self._sent_at = asyncio.get_running_loop().time()
            self._writer({"event": "token", "persona": self._persona, "text": text})


async def desk_events(graph: Any, graph_input: Any, config: Any, context: Any) -> AsyncIterator[Event]:
    # Set in this task's context before the graph makes its tasks: they copy it.
    _WORDS_WRITTEN.set(True)
    async for _ns, mode, payload in graph.astream(
        graph_input, config, context=context, stream_mode=["updates", "custom"], subgraphs=True
    ):
        if mode == "custom":
            if isinstance(payload, dict) and payload.get("event") == "token":
                yield Token(payload["persona"], payload["text"])
            elif (event := decode(payload)) is not None:
                yield event
        elif mode == "updates" and isinstance(payload, dict):
            for node, update in payload.items():
                if isinstance(update, dict):
                    yield NodeDone(node, update)
