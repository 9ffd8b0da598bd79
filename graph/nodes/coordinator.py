"""The coordinator node: reads the user's sentence into a request (graph/request/) and
decides what happens next: an analysis, a follow-up, an answer, or a question back."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from ..context import DeskContext
from ..events import Said, emit
from ..models.registry import ModelRegistry
from ..personas import DESK, REPORT_KEYS
from ..prompts import render
from ..request.resolve import resolve
from ..settings import Settings
from ..state import Debate, DeskState
from .speaking import spoken


def fresh_run(state: DeskState) -> dict[str, Any]:
    """What a new analysis clears; the previous decision moves to the thread's past decisions."""
    update: dict[str, Any] = {key: "" for key in (*REPORT_KEYS, "investment_plan", "trader_plan")}
    update |= {"investment_debate": Debate(), "risk_debate": Debate(), "final_decision": None, "forked": None}
    if state.get("final_decision") is not None:
        update["past_decisions"] = [state["final_decision"]]
    return update


def make_coordinator(settings: Settings, models: ModelRegistry) -> Callable[..., Any]:
    async def coordinator(state: DeskState, runtime: Runtime[DeskContext]) -> dict[str, Any]:
        # Only a live model may name a company the rules don't know; the demo never guesses.
        model = models.quick(runtime.context) if models.live else None
        text = next((str(m.content) for m in reversed(state.get("messages", [])) if isinstance(m, HumanMessage)), "")
        today = (runtime.context.today if runtime.context else None) or date.today()
        decided = state.get("final_decision") is not None
        current = date.fromisoformat(trade_date) if (trade_date := state.get("trade_date")) else None
        parsed = await resolve(text, today, has_decision=decided, current_ticker=state.get("ticker"),
                               current_date=current, model=model)
        update: dict[str, Any] = {"intent": parsed.intent}
        if parsed.intent == "analyze":
            assert parsed.trade_date and parsed.asked_date, "an analysis always has its dates"
            asked = parsed.asked_date
            note = "" if asked == parsed.trade_date else (
                f" (you asked about {asked:%A %Y-%m-%d}; markets were closed, so I use the last trading day before it)")
            name = f" ({parsed.company})" if parsed.company else ""
            say = f"Analyzing **{parsed.ticker}**{name} for the trade date **{parsed.trade_date}**{note}."
            update |= fresh_run(state) | {
                "ticker": parsed.ticker, "company": parsed.company or parsed.ticker,
                "trade_date": parsed.trade_date.isoformat(), "asked_date": asked.isoformat(),
                "analysts": list(state.get("analysts") or settings.analysts),
                "debate_rounds": state.get("debate_rounds") or settings.debate_rounds,
                "risk_rounds": state.get("risk_rounds") or settings.risk_rounds,
            }
        elif parsed.intent == "chat":
            say = render("desk_help", mode_line=models.notice)
        elif parsed.intent == "clarify":
            say = parsed.question or "Which stock should the desk look at? Try “should I buy NVDA today?”."
        else:  # a follow-up: Desk answers in its own node, from the record
            return update
        emit(runtime.stream_writer, Said(DESK, say))
        return update | {"messages": [spoken(DESK, say)]}

    return coordinator
