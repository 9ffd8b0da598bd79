"""The request with a model's help: the rules first; only when they find no ticker and a live
model is configured does one structured-output call try to name the company."""
from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from datetime import date

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, Field

from ..core.personas import DESK
from ..core.prompts import render
from .guard import clean_message
from .intent import ParsedRequest, parse_request
from .tickers import ENGLISH_WORDS, HARD_STOP


class TickerGuess(BaseModel):
    ticker: str | None = Field(None, description="Yahoo Finance ticker, or null if unsure")
    date: str | None = Field(None, description="YYYY-MM-DD the user asked about, or null")


# How the coordinator asks a model for a shape (graph/models/shaped.py: under its JSON schema where the
# server can, else function calling); None when the model gave none.
Shape = Callable[[type[TickerGuess], list[BaseMessage]], Awaitable[TickerGuess | None]]


async def resolve(text: str, today: date, *, has_decision: bool = False, current_ticker: str | None = None,
                  current_date: date | None = None, model: BaseChatModel | None = None,
                  analysed: Mapping[str, date] | None = None, shape: Shape | None = None) -> ParsedRequest:
    text = clean_message(text).text  # what the model reads is as bounded and clean as what the rules read
    parsed = parse_request(text, today, has_decision=has_decision, current_ticker=current_ticker,
                           current_date=current_date, analysed=analysed)
    if (model is None and shape is None) or parsed.intent != "clarify" or parsed.ticker or parsed.asked_date is None:
        return parsed
    prompt: list[BaseMessage] = [HumanMessage(render("coordinator", text=text, today=today.isoformat()))]
    try:
        if shape is not None:
            guess: object = await shape(TickerGuess, prompt)
        else:  # a bare model (tests): function calling
            assert model is not None
            guess = await model.with_structured_output(TickerGuess, method="function_calling").with_config(
                tags=["nostream"], metadata={"persona": DESK}).ainvoke(prompt)
    except Exception:  # the deterministic question is still a good answer
        return parsed
    if not isinstance(guess, TickerGuess) or not guess.ticker:
        return parsed
    symbol = guess.ticker.strip().lstrip("$")
    if _refused_word(symbol, text):
        return parsed  # "DROP TABLE threads": the rules refused TABLE as a word; the model may not undo that
    # Re-parse with the model's ticker spelled out, so dates and checks stay deterministic.
    again = parse_request(f"${symbol} {text}", today, has_decision=has_decision,
                          current_ticker=current_ticker, current_date=current_date, analysed=analysed)
    return again if again.ticker else parsed


def _refused_word(symbol: str, text: str) -> bool:
    """Is the model's ticker an ordinary word the user typed as a word (not as $WORD)?"""
    upper = symbol.upper()
    if upper not in ENGLISH_WORDS and upper not in HARD_STOP:
        return False
    return re.search(rf"(?<![\w$]){re.escape(symbol)}(?!\w)", text, re.IGNORECASE) is not None
