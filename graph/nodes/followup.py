"""The follow-up node: Desk answers questions from the stored deliberation, re-running nothing."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from ..core.context import DeskContext
from ..core.personas import DESK
from ..core.prompts import render
from ..core.state import DeskState
from ..core.usage import Meter
from ..models.registry import ModelRegistry
from ..record.case import desk_notes, in_full
from .speaking import ask, case_file, language_line, spoken, subject, text_of


def make_followup(models: ModelRegistry) -> Callable[..., Any]:
    async def followup(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        question = next((m.content for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), "")
        # The case file first, as every speaker read it (the ruling appended): a follow-up right
        # after the decision finds all of it in the server's prefix cache. The thread's language, when
        # not English, is asked for right after the Desk's role, before the notes it answers from.
        finished = state.get("final_decision") is not None
        # After a Stop the record ends mid-deliberation: the Desk answers from what was said so far.
        status, extent = (("has finished its analysis of", "its whole deliberation") if finished else
                          ("was stopped before a decision in its analysis of", "what was said before the stop"))
        if state.get("ticker"):
            system = case_file(state) + "\n\n" + render("desk", **subject(state), status=status, extent=extent,
                                                          context=desk_notes(state), language=language_line(state))
            # The case file carries earlier debate turns by their claims; a question may be about any
            # word of them, so the Desk reads them whole after its notes (the case file stays the prefix).
            if full := in_full(state):
                system += "\n\n" + full
        else:  # no analysis in this chat, only the track record shown: the Desk answers from it
            system = render("desk_record", context=desk_notes(state), language=language_line(state))
        meter = Meter.of(state, DESK, models.settings.token_budget)  # capped, counted, within the budget
        reply = await ask(models.quick(runtime.context), [SystemMessage(system), HumanMessage(str(question))], DESK,
                          limits=models.limits("turn"), meter=meter)
        return {"messages": [spoken(DESK, text_of(reply))], **meter.update()}

    return followup
