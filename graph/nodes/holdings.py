"""The user's book for a run: read from the Store when an analysis begins, priced at the closes of its trade
date (graph/book/brief.py), and the ruling sized against it once the Risk Judge has decided.

Without a book (none told, a backtest's own user, a run with no Store) everything is as before: no block in
the prompts, no sizing on the card. A book that cannot be read or priced is advice lost, not a failed run:
the analysis goes on without it, and the log says why.
"""
from __future__ import annotations

import logging
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from ..book.brief import PricedBook, sizing_state
from ..book.store import BookStore
from ..core.context import DeskContext, user_of
from ..core.state import DeskState, FinalDecision
from ..core.words import phrase
from ..data.vendor import Vendor
from ..tools.cutoff import cut_prices
from ..tools.guarded import call_vendor

logger = logging.getLogger(__name__)
_LOOK_BACK_DAYS = 10  # a close on or before the trade date: a long weekend and a holiday fit


async def _close(vendor: Vendor, symbol: str, as_of: date) -> Decimal | None:
    try:
        frame = cut_prices(await call_vendor(vendor.ohlcv, symbol, as_of - timedelta(days=_LOOK_BACK_DAYS), as_of),
                           as_of)
    except Exception as exc:  # a vendor failure is a stated gap for that symbol, never a guessed price
        logger.info("no close for %s by %s: %s", symbol, as_of, exc)
        return None
    closes = frame["close"].dropna() if "close" in frame else None
    if closes is None or closes.empty:
        return None
    return Decimal(str(round(float(closes.iloc[-1]), 4)))


async def book_for(runtime: Runtime[DeskContext], vendor: Vendor, ticker: str, trade_date: str, *,
                   allow_short: bool) -> dict[str, Any] | None:
    """The run's user's book priced at the trade date's closes, as state; None without one."""
    if runtime.store is None:
        return None
    user, _ = user_of(get_config(), runtime.context)
    return await priced_book(runtime.store, vendor, user, ticker, trade_date, allow_short=allow_short)


async def priced_book(store: BaseStore, vendor: Vendor, user: str, ticker: str, trade_date: str, *,
                      allow_short: bool) -> dict[str, Any] | None:
    """`user`'s book as it is stored now, priced at the trade date's closes, as state; None without one. An
    analysis reads it as it begins (book_for); an edit's re-run reads it again (graph/runtime/desk.py: fork)."""
    try:
        book = await BookStore(store).get(user)
        if book is None or (not book.positions and not book.cash):
            return None
        as_of = date.fromisoformat(trade_date)
        prices: dict[str, Decimal] = {}
        for symbol in dict.fromkeys([ticker, *(p.symbol for p in book.positions)]):
            if (close := await _close(vendor, symbol, as_of)) is not None:
                prices[symbol] = close
        return PricedBook(book, ticker, trade_date, prices, allow_short).as_state()
    except Exception:
        logger.exception("the user's book could not be read for %s", ticker)
        return None


def brief_of(state: DeskState) -> str:
    """What the Trader and the Risk Judge read of the book ('' without one)."""
    book = state.get("book")
    return str(book.get("brief") or "") if isinstance(book, dict) else ""


def sized(state: DeskState, decision: FinalDecision) -> dict[str, Any] | None:
    """The decision against the run's book, as state for the card and follow-ups; None without a book."""
    book = state.get("book")
    if not isinstance(book, dict):
        return None
    sizing = PricedBook.from_state(book).size(decision)
    if sizing is not None:
        return sizing_state(sizing)
    fields = {"symbol": decision.ticker, "date": decision.trade_date}
    return {"action": "gap", "summary": phrase("en", "book.sizing_gap_close", **fields),
            "said": {"key": "book.sizing_gap_close", "fields": fields}, "gaps": [f"price of {decision.ticker}"]}
