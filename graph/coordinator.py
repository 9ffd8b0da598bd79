"""The coordinator: reads the user's sentence into a request and decides what happens next.

Deterministic first (graph/request.py); only when that finds no ticker and a live model is
configured does one structured-output call try to name the company. The CLI
`python -m graph.coordinator --today YYYY-MM-DD "TEXT"` prints the parse as JSON.
"""
from __future__ import annotations

import argparse
import asyncio
import json
from datetime import date

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from .context import DeskContext
from .personas import DESK
from .prompts import render
from .request import ParsedRequest, parse_request
from .settings import Settings
from .state import Debate, DeskState
from .turns import spoken


class TickerGuess(BaseModel):
    ticker: str | None = Field(None, description="Yahoo Finance ticker, or null if unsure")
    date: str | None = Field(None, description="YYYY-MM-DD the user asked about, or null")


async def resolve(text: str, today: date, *, has_decision: bool = False, current_ticker: str | None = None,
                  current_date: date | None = None, model: BaseChatModel | None = None) -> ParsedRequest:
    parsed = parse_request(text, today, has_decision=has_decision, current_ticker=current_ticker,
                           current_date=current_date)
    if model is None or parsed.intent != "clarify" or parsed.ticker or parsed.asked_date is None:
        return parsed
    try:
        guess = await model.with_structured_output(TickerGuess).with_config(
            tags=["nostream"], metadata={"persona": DESK}).ainvoke(
            [HumanMessage(render("coordinator", text=text, today=today.isoformat()))])
    except Exception:  # the deterministic question is still a good answer
        return parsed
    if not isinstance(guess, TickerGuess) or not guess.ticker:
        return parsed
    # Re-parse with the model's ticker spelled out, so dates and checks stay deterministic.
    again = parse_request(f"${guess.ticker.strip().lstrip('$')} {text}", today, has_decision=has_decision,
                          current_ticker=current_ticker, current_date=current_date)
    return again if again.ticker else parsed


def fresh_run(state: DeskState) -> dict:
    """What a new analysis clears; the previous decision moves to the thread's past decisions."""
    update: dict = {key: "" for key in ("market_report", "sentiment_report", "news_report",
                                        "fundamentals_report", "investment_plan", "trader_plan")}
    update |= {"investment_debate": Debate(), "risk_debate": Debate(), "final_decision": None}
    if state.get("final_decision") is not None:
        update["past_decisions"] = [state["final_decision"]]
    return update


def make_coordinator(settings: Settings, model: BaseChatModel | None, notice: str):
    async def coordinator(state: DeskState, runtime: Runtime[DeskContext]) -> dict:
        text = next((str(m.content) for m in reversed(state.get("messages", [])) if isinstance(m, HumanMessage)), "")
        today = (runtime.context.today if runtime.context else None) or date.today()
        decided = state.get("final_decision") is not None
        current = date.fromisoformat(state["trade_date"]) if state.get("trade_date") else None
        parsed = await resolve(text, today, has_decision=decided, current_ticker=state.get("ticker"),
                               current_date=current, model=model)
        update: dict = {"intent": parsed.intent}
        if parsed.intent == "analyze":
            asked = parsed.asked_date
            note = "" if asked == parsed.trade_date else f" (you asked about {asked:%A %Y-%m-%d}; markets were closed, so I use the last trading day before it)"
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
            say = render("desk_help", mode_line=notice)
        elif parsed.intent == "clarify":
            say = parsed.question or "Which stock should the desk look at? Try “should I buy NVDA today?”."
        else:  # a follow-up: Desk answers in its own node, from the record
            return update
        if runtime.stream_writer:
            runtime.stream_writer({"event": "say", "persona": DESK, "text": say})
        return update | {"messages": [spoken(DESK, say)]}

    return coordinator


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m graph.coordinator", description="Parse one request; print JSON.")
    ap.add_argument("text")
    ap.add_argument("--today", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default: today)")
    ap.add_argument("--has-decision", action="store_true", help="parse as if the thread holds a decision")
    args = ap.parse_args(argv)
    settings = Settings()
    model = None
    if settings.live:
        from .llm import make_models
        model = make_models(settings).quick
    parsed = asyncio.run(resolve(args.text, args.today or date.today(), has_decision=args.has_decision, model=model))
    print(parsed.reason)
    print(json.dumps(parsed.model_dump(mode="json")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
