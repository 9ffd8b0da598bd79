"""Desk: answers follow-up questions from the stored deliberation, without re-running anything."""
from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from .context import DeskContext
from .personas import DESK
from .prompts import render
from .state import DeskState
from .turns import ask, reports_block, spoken, subject


def record_of(state: DeskState) -> str:
    """The stored deliberation as sections a model (or the demo policy) can quote from."""
    parts = []
    if (d := state.get("final_decision")) is not None:
        parts.append(f"## Final decision\nSignal: {d.signal}; size {d.position_size}; entry {d.entry}; "
                     f"stop {d.stop}; horizon {d.horizon}; confidence {d.confidence:.2f}.\n{d.rationale}")
    parts.append(reports_block(state))
    for key in ("investment_debate", "risk_debate"):
        if (debate := state.get(key)) is not None:
            for persona in dict.fromkeys(t.persona for t in debate.turns):
                parts.append(f"## {persona}\n" + "\n\n".join(t.text for t in debate.turns if t.persona == persona))
    for title, key in (("Research Manager", "investment_plan"), ("Trader", "trader_plan")):
        if state.get(key):
            parts.append(f"## {title}\n{state[key]}")
    if (debate := state.get("risk_debate")) is not None and debate.judge_decision:
        parts.append(f"## Risk Judge\n{debate.judge_decision}")
    if state.get("interventions"):
        parts.append("## User interjections\n" + "\n".join(
            f"- “{i.text}” (answered by {', '.join(i.answered_by)})" for i in state["interventions"]))
    if state.get("past_decisions"):
        parts.append("## Earlier decisions in this chat\n" + "\n".join(
            f"- {p.ticker} {p.trade_date}: {p.signal} (confidence {p.confidence:.2f})" for p in state["past_decisions"]))
    return "\n\n".join(parts)


def make_desk(model: BaseChatModel):
    async def desk(state: DeskState, runtime: Runtime[DeskContext]) -> dict:
        question = next((m.content for m in reversed(state["messages"]) if isinstance(m, HumanMessage)), "")
        system = render("desk", **subject(state), context=record_of(state))
        reply = await ask(model,
                            [SystemMessage(system), HumanMessage(str(question))], DESK)
        return {"messages": [spoken(DESK, str(reply.content))]}

    return desk
