"""What every speaker does around its model call: read the inbox, read the case file, speak."""
from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.runnables import Runnable
from langgraph.config import get_config, get_stream_writer
from langgraph.runtime import Runtime

from ..core.context import DeskContext
from ..core.errors import NO_TOOLS, DeskError, explain, kind_of
from ..core.events import NotePickedUp, TurnRestarted, Words, emit
from ..core.plan import RunPlan
from ..core.prompts import render, without_instructions
from ..core.state import DeskState, Intervention, language_of
from ..core.usage import Meter
from ..core.words import DEFAULT_LANGUAGE, language_name
from ..models.registry import CallLimits
from ..models.waits import told_of_waits
from ..notes.address import started_at_read, waiting
from ..notes.inbox import NOTES_PER_TURN, Inbox, quoted_note
from ..record.case import case_record

logger = logging.getLogger(__name__)


async def take_notes(state: DeskState, runtime: Runtime[DeskContext], persona: str) -> tuple[str, dict[str, Any]]:
    """Read the thread's new notes for this speaker: the prompt text answering them, and the
    state update that records them (so they are checkpointed with this turn). A note addressed to
    another persona with a turn still to start is left for that persona (graph/notes/address.py)."""
    if runtime.store is None:
        return "", {}
    thread_id = str(get_config()["configurable"]["thread_id"])
    notes = await Inbox(runtime.store).unread(thread_id, state.get("inbox_read") or [], state.get("inbox_seen") or 0)
    if any(n.to for n in notes):
        plan = RunPlan.from_state(state)
        ahead = waiting(plan, started_at_read(plan, state, persona))
        notes = [n for n in notes if n.for_reader(persona, ahead)]
    notes = notes[:NOTES_PER_TURN]  # the oldest first; later ones wait for the next speaker
    if not notes:
        return "", {}
    for n in notes:
        emit(runtime.stream_writer, NotePickedUp(persona, n.seq, n.text))
    text = "".join("\n\n" + render("intervention", text=quoted_note(n.text), persona=persona) for n in notes)
    update = {
        "interventions": [Intervention(seq=n.seq, text=n.text, answered_by=[persona]) for n in notes],
        "inbox_read": [n.key for n in notes],
    }
    return text, update


def opening(state: DeskState) -> str:
    """What every prompt of the desk opens with, the analysts' and the case file alike: the request and
    the rules every member follows (prompts/desk_opening.md). Said once here, not in each role (issue 41),
    so the roles after it are short and the rules are a prefix a server's cache reuses for every call."""
    return render("desk_opening", **subject(state))


def case_file(state: DeskState) -> str:
    """What every speaker after the analysts reads first, and the same for all of them: the
    desk's opening, the four reports in a fixed order, then the deliberation so far in speaking order.

    A speaker's prompt is this, then its own role, then its turn (and the user's notes), so the
    previous speaker's case file is a prefix of the next one's: prefix caching (llama.cpp,
    vLLM, OpenAI) skips all of it but the newest turn (benchmarks/prompts.py measures it)."""
    return render("case_file", opening=opening(state), record=case_record(state))


def language_line(state: DeskState) -> str:
    """The instruction to answer in the thread's language (prompts/language.md), to follow a
    speaker's role; nothing for English, so an English run's prompts are what they always were.

    It goes in the per-persona tail, after the role, never in the case file: the case file is the
    prefix every later speaker's prompt shares (and a server caches), and the role after it is the
    speaker's own anyway, so the line breaks no shared prefix and costs only itself (~58 tokens a
    call, ~930 uncached per one-round decision). Last in the system text, it is also the instruction
    a model reads nearest its answer, after pages of English case file: where it is followed best."""
    language = language_of(state)
    if language == DEFAULT_LANGUAGE:
        return ""
    return "\n\n" + render("language", language=language_name(language))


def subject(state: DeskState) -> dict[str, str]:
    return {"ticker": state.get("ticker") or "?", "company": state.get("company") or state.get("ticker") or "?",
            "trade_date": state.get("trade_date") or "?"}


def spoken(persona: str, text: str) -> AIMessage:
    """A persona's turn as it stays in the user-visible conversation: without any instruction of the
    desk's it repeats (graph/core/prompts.py), whatever the model echoed of its prompt."""
    return AIMessage(content=without_instructions(text), name=persona)


def text_of(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


# An empty answer is asked again this many times before it counts as no answer.
EMPTY_RETRIES = 2
# A stream the server cut mid-answer is asked again this many times.
CUT_RETRIES = 2
# A call that sent nothing for the stall timeout is cancelled and asked again this many times.
STALL_RETRIES = 1
NO_ANSWER = "(no answer: the model returned nothing, {tries} times)"
NO_ANSWER_START = NO_ANSWER.split("{")[0]
# Characters a blank answer may consist of: whitespace and the invisible ones small models emit.
_BLANK = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]*")


class EmptyAnswer(DeskError):
    """The model said nothing where the desk cannot go on without words (the Risk Judge)."""


class Stalled(DeskError):
    """The model sent nothing for the stall timeout, on every try."""


class NoTools(DeskError):
    """The model server refused the tools (a model without tool support)."""


def blank(text: str) -> bool:
    return _BLANK.fullmatch(text) is not None


Restarted = Callable[[TurnRestarted], None]


def _stream_writer() -> Callable[[Any], None] | None:
    """The graph's custom stream (None outside a graph's run)."""
    try:
        return get_stream_writer()
    except (RuntimeError, KeyError):  # not inside a graph's run
        return None


def _graph_writer() -> Restarted | None:
    """Where a node's `ask` tells its stream a call restarted: the graph's custom stream (None outside a graph)."""
    writer = _stream_writer()
    return None if writer is None else (lambda event: emit(writer, event))


async def ask(model: BaseChatModel | Runnable[Any, Any], messages: list[BaseMessage], persona: str, *,
              required: bool = False, limits: CallLimits | None = None, meter: Meter | None = None,
              restarted: Restarted | None = None) -> AIMessage:
    """One model call, streamed and tagged with its persona so stream consumers know who is speaking.

    Real models fail in small ways, and each is bounded here: an empty or blank answer is asked
    again, then recorded as no answer (the desk goes on) or, when `required`, stops the run with
    a sentence the user can act on (an empty answer must never become a decision); a stream the
    server cut is asked again; a call that sends nothing for `limits.stall_timeout_s` is cancelled
    and asked again once. `limits` caps the output; `meter` counts the tokens and stops the run
    before a call that would pass the budget.

    Words a cut or stalled call streamed before it failed are void: `restarted` (by default the
    graph's stream) is told a `TurnRestarted` with them, so what shows the turn drops them before the
    call is asked again (or the run stops), and nothing is said twice. Failures before any word (a
    500, a 429 with Retry-After, a refused connection) are the client's to retry (`max_retries`)."""
    limits = limits or CallLimits()
    restarted = restarted or _graph_writer()
    bound = model.bind(**limits.fields) if limits.fields else model
    tagged = bound.with_config(metadata={"persona": persona})
    tries = _Tries()
    while True:
        if meter is not None:
            meter.check(messages, limits.max_tokens)
        reply = await _call(tagged, messages, persona, limits, tries, restarted)
        if reply is None:
            continue
        if meter is not None:
            meter.add(reply, messages)
        # What a person will read of it: an instruction of the desk's the model echoed is left out (a
        # reply that was nothing but its prompt echoed is no answer).
        reply = reply.model_copy(update={"content": without_instructions(text_of(reply))})
        if reply.tool_calls or reply.invalid_tool_calls or not blank(text_of(reply)):
            return reply
        tries.empties += 1
        if tries.empties > EMPTY_RETRIES:
            break
    if required:
        raise EmptyAnswer(key="errors.empty_answer", persona=persona, tries=tries.empties)
    return AIMessage(content=NO_ANSWER.format(tries=tries.empties), name=persona)


@dataclass
class _Tries:
    """How many times one `ask` got an empty answer, a cut stream, a stalled call."""
    empties: int = 0
    cuts: int = 0
    stalls: int = 0


async def _call(model: Runnable[Any, Any], messages: list[BaseMessage], persona: str, limits: CallLimits,
                tries: _Tries, restarted: Restarted | None) -> AIMessage | None:
    """One try of `ask`: the reply, or None when the call stalled or was cut off and may be asked
    again. A failure that may not (its retries spent, or any other) stops the run with a sentence
    the user can act on."""
    try:
        return await _streamed(model, messages, limits.stall_timeout_s, persona)
    except _Stall as stall:
        _void(restarted, persona, stall.text, "stall")
        tries.stalls += 1
        if tries.stalls > STALL_RETRIES:
            raise Stalled(key="errors.stalled", persona=persona, seconds=limits.stall_timeout_s,
                          tries=tries.stalls) from None
    except _Cut as cut:
        _void(restarted, persona, cut.text, "cut")
        tries.cuts += 1
        logger.warning("%s: the model server cut its answer off (%s: %s)", persona, type(cut.error).__name__, cut.error)
        if tries.cuts > CUT_RETRIES:
            # The cause in words when it is a timeout (a read that waited too long); otherwise the
            # connection dropped, whatever the client calls it (a "connection error" would say the
            # server cannot be reached, which it could), and never the driver's own words.
            why = cut.error if kind_of(cut.error) == "timeout" else DeskError(key="errors.dropped")
            raise DeskError(key="errors.cut", persona=persona, tries=tries.cuts, why=why) from cut.error
    except DeskError:
        raise
    except Exception as exc:  # the run stops with a sentence the user can act on
        failure = NoTools if explain(exc) == NO_TOOLS else DeskError
        raise failure(key="errors.persona", persona=persona, why=exc) from exc
    return None


def _void(restarted: Restarted | None, persona: str, text: str, reason: str) -> None:
    """Tell the stream that the words a failed call streamed are void (nothing: none streamed)."""
    if text and restarted is not None:
        restarted(TurnRestarted(persona, text, reason))


class _Stall(Exception):
    def __init__(self, text: str = ""):
        super().__init__("stalled")
        self.text = text  # the words streamed before it stalled


class _Cut(Exception):
    def __init__(self, error: BaseException, text: str = ""):
        super().__init__(str(error))
        self.error = error
        self.text = text  # the words streamed before the cut


# Transport failures after the server accepted the request: the answer was cut off, asking again
# may well work. (Failures to connect at all are retried by the client itself.)
_CUT_ERRORS = (("httpx", "RemoteProtocolError"), ("httpx", "ReadError"), ("httpx", "StreamError"),
               ("httpx2", "RemoteProtocolError"), ("httpx2", "ReadError"), ("httpx2", "StreamError"),
               ("asyncio", "IncompleteReadError"), ("builtins", "ConnectionResetError"))


def _is_cut(exc: BaseException) -> bool:
    classes = tuple(c for module, name in _CUT_ERRORS
                    if isinstance(c := getattr(sys.modules.get(module), name, None), type))
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, classes):
            return True
        current = current.__cause__ or current.__context__
    return False


async def _streamed(model: Runnable[Any, Any], messages: list[BaseMessage], stall_s: float | None,
                    persona: str = "") -> AIMessage:
    """The reply, read as a stream so the watchdog sees every piece: no piece within `stall_s`
    cancels the call. The pieces reach the desk's own consumer as Token events of `persona` on the
    graph's custom stream (`Words`), and any other through LangGraph's "messages" stream (callbacks)."""
    loop = asyncio.get_running_loop()
    reply = _Pieces()
    words = Words.for_run(_stream_writer(), persona)
    try:
        stream = cast(AsyncGenerator[Any, None], model.astream(messages))
        async with aclosing(stream), asyncio.timeout(stall_s) as watch:
            def waits(seconds: float) -> None:  # the client waits before asking again (models/waits.py)
                if stall_s is not None:
                    watch.reschedule(loop.time() + seconds + stall_s)
            with told_of_waits(waits):
                async for chunk in stream:
                    if stall_s is not None:
                        watch.reschedule(loop.time() + stall_s)
                    reply.take(chunk)
                    words.add(_text(chunk))
    except TimeoutError:
        if watch.expired():
            raise _Stall(reply.text()) from None
        raise
    except Exception as exc:
        if (empty := _empty_or_cut(exc, reply.text() if reply.pieces else None)) is not None:
            return empty
        raise
    finally:
        words.flush()  # before the restart a failure may tell, and before the node's end
    return reply.message()


def _text(chunk: Any) -> str:
    """A streamed piece's words (a model that cannot stream gives its whole answer as one piece)."""
    content = getattr(chunk, "content", None)
    return content if isinstance(content, str) and isinstance(chunk, AIMessageChunk | AIMessage) else ""


class _Pieces:
    """A streamed reply's pieces, merged once at the end: a merge per piece made a new message per word."""

    def __init__(self) -> None:
        self.pieces: list[AIMessageChunk] = []
        self.whole: AIMessage | None = None

    def take(self, chunk: Any) -> None:
        if isinstance(chunk, AIMessageChunk):
            self.pieces.append(chunk)
        elif isinstance(chunk, AIMessage):  # a model that cannot stream answers whole
            self.whole = chunk

    def text(self) -> str:
        """The words streamed so far, as the stream's Token events carried them."""
        return "".join(p.content for p in self.pieces if isinstance(p.content, str))

    def message(self) -> AIMessage:
        if not self.pieces:
            return self.whole or AIMessage(content="")
        pieces = self.pieces
        merged = pieces[0] if len(pieces) == 1 else add_ai_message_chunks(pieces[0], *pieces[1:])
        return cast(AIMessage, message_chunk_to_message(merged))


def _empty_or_cut(exc: Exception, streamed: str | None) -> AIMessage | None:
    """What a stream that failed gave: an empty reply when the failure only says there was nothing
    ("No generation chunks were returned"); `_Cut` raised, with the words `streamed` before it, when
    the answer was cut off (it may be asked again); None for any other failure, which the caller
    re-raises. `streamed` None: no piece came at all."""
    if streamed is None and isinstance(exc, ValueError) and "generation" in str(exc).lower():
        return AIMessage(content="")
    if streamed is not None or _is_cut(exc):
        raise _Cut(exc, streamed or "") from exc
    return None
