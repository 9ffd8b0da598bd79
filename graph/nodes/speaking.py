"""What every speaker does around its model call: read the inbox, read the case file, speak."""
from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langgraph.config import get_config
from langgraph.runtime import Runtime

from ..context import DeskContext
from ..errors import DeskError, explain
from ..events import NotePickedUp, emit
from ..inbox import Inbox
from ..prompts import render
from ..record import case_record
from ..state import DeskState, Intervention


async def take_notes(state: DeskState, runtime: Runtime[DeskContext], persona: str) -> tuple[str, dict[str, Any]]:
    """Read the thread's new notes for this speaker: the prompt text answering them, and the
    state update that records them (so they are checkpointed with this turn)."""
    if runtime.store is None:
        return "", {}
    thread_id = str(get_config()["configurable"]["thread_id"])
    notes = await Inbox(runtime.store).since(thread_id, state.get("inbox_seen", 0))
    if not notes:
        return "", {}
    for n in notes:
        emit(runtime.stream_writer, NotePickedUp(persona, n.seq, n.text))
    text = "".join("\n\n" + render("intervention", text=n.text, persona=persona) for n in notes)
    update = {
        "interventions": [Intervention(seq=n.seq, text=n.text, answered_by=[persona]) for n in notes],
        "inbox_seen": max(n.seq for n in notes),
    }
    return text, update


def case_file(state: DeskState) -> str:
    """What every speaker after the analysts reads first, and the same for all of them: the
    request, the four reports in a fixed order, then the deliberation so far in speaking order.

    A speaker's prompt is this, then its own role, then its turn (and the user's notes), so the
    previous speaker's case file is a prefix of the next one's: prefix caching (llama.cpp,
    vLLM, OpenAI) skips all of it but the newest turn (benchmarks/prompts.py measures it)."""
    return render("case_file", **subject(state), record=case_record(state))


def subject(state: DeskState) -> dict[str, str]:
    return {"ticker": state.get("ticker") or "?", "company": state.get("company") or state.get("ticker") or "?",
            "trade_date": state.get("trade_date") or "?"}


def spoken(persona: str, text: str) -> AIMessage:
    """A persona's turn as it stays in the user-visible conversation."""
    return AIMessage(content=text, name=persona)


def text_of(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


# An empty answer is asked again this many times before it counts as no answer.
EMPTY_RETRIES = 2
NO_ANSWER = "(no answer: the model returned nothing, {tries} times)"


class EmptyAnswer(DeskError):
    """The model said nothing where the desk cannot go on without words (the Risk Judge)."""


async def ask(model: BaseChatModel | Runnable[Any, Any], messages: list[BaseMessage], persona: str, *,
              required: bool = False) -> AIMessage:
    """One model call, tagged with its persona so stream consumers know who is speaking.

    Small models return empty answers: an empty one is asked again; after that the turn is
    recorded as no answer (the desk goes on), or, when `required`, the run stops with a
    sentence the user can act on — an empty answer must never become a decision."""
    tagged = model.with_config(metadata={"persona": persona})
    for _ in range(EMPTY_RETRIES + 1):
        try:
            reply = await tagged.ainvoke(messages)
        except Exception as exc:  # the run stops with a sentence the user can act on
            raise DeskError(f"{persona}: {explain(exc)}") from exc
        if reply.tool_calls or text_of(reply).strip():
            return reply
    tries = EMPTY_RETRIES + 1
    if required:
        raise EmptyAnswer(f"{persona}: the model returned an empty answer {tries} times, so no decision was made. "
                          "Check the model server, then type “resume” to continue from this step.")
    return AIMessage(content=NO_ANSWER.format(tries=tries), name=persona)
