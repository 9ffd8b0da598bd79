"""What every speaker does around its model call: read the inbox, see the reports, speak."""
from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langgraph.runtime import Runtime

from ..context import DeskContext
from ..errors import DeskError, explain
from ..events import NotePickedUp, emit
from ..personas import ANALYSTS
from ..prompts import render
from ..state import DeskState, Intervention


def take_notes(state: DeskState, runtime: Runtime[DeskContext], persona: str) -> tuple[str, dict[str, Any]]:
    """Drain the inbox for this speaker: the prompt text answering it, and the state update
    that records the notes (so they are checkpointed with this turn)."""
    notes = runtime.context.inbox.since(state.get("inbox_seen", 0)) if runtime.context else []
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


def reports_block(state: DeskState) -> str:
    parts = [f"## {a.persona} report\n{state[a.report_key]}"  # type: ignore[literal-required]
             for a in ANALYSTS if state.get(a.report_key)]
    return "\n\n".join(parts) or "## Reports\n(no analyst reports)"


def subject(state: DeskState) -> dict[str, str]:
    return {"ticker": state.get("ticker") or "?", "company": state.get("company") or state.get("ticker") or "?",
            "trade_date": state.get("trade_date") or "?"}


def spoken(persona: str, text: str) -> AIMessage:
    """A persona's turn as it stays in the user-visible conversation."""
    return AIMessage(content=text, name=persona)


def text_of(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


async def ask(model: BaseChatModel | Runnable[Any, Any], messages: list[BaseMessage], persona: str) -> AIMessage:
    """One model call, tagged with its persona so stream consumers know who is speaking."""
    try:
        return await model.with_config(metadata={"persona": persona}).ainvoke(messages)
    except Exception as exc:  # the run stops with a sentence the user can act on
        raise DeskError(f"{persona}: {explain(exc)}") from exc
