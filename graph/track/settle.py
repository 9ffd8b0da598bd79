"""Scoring a call once its holding window has passed, from the desk's own data vendor, point in time.

The window is the trade date's session and the next n sessions (n = horizon.sessions(call.horizon))
**as the vendor's price rows give them**, so an exchange abroad counts its own trading days whatever
calendar the vendor keeps (when to try is that exchange's calendar: horizon.due_date). The call is scored
close to close: its return from the trade date's close to the settle date's close, minus its benchmark's
over the same two dates, is its alpha.

Nothing is guessed: a missing close, a window the data does not yet cover, or a vendor failure leaves
the call pending with the reason, to be tried again at the next settlement pass; no price is filled in
and no outcome made up. Prices are read up to `today` only, never after (no look-ahead), and on the real
today only up to yesterday: a session still trading has no close yet (`last_close_day`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

import pandas as pd

from graph.core import clock

from ..core.state import Signal
from ..data.vendor import finite
from .calls import Call, Outcome, Verdict
from .horizon import benchmark_for, due_date, sessions

# A HOLD says "no edge either way": it was right when the stock neither beat nor lagged its benchmark by more
# than this over the window. A move inside the band is one no BUY or SELL would have been worth making for;
# with no band (alpha exactly 0) almost every HOLD would be scored wrong.
HOLD_BAND = 0.02
NEW_YORK = ZoneInfo("America/New_York")  # where the sessions of US listings close

# A number in the stop's text; one followed by "%", "x", "ATR" or a span of time ("5 %", "2x ATR",
# "50-day") is not a price, nor is a date ("2024-06-01", taken out first).
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUMBER = re.compile(r"(?<![\w.])\$?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_NOT_A_PRICE = re.compile(
    r"\s*(?:%|x\b|×|atr\b|per\s*cent|percent|pct\b|sd\b|std\b|standard\s+dev|sigma|σ|-\s*\d"
    r"|-?\s*(?:d|days?|sessions?|w|wks?|weeks?|months?|sma|ema|dma|ma)\b)", re.IGNORECASE)


class Prices(Protocol):
    """What settlement reads of a vendor: every graph.data Vendor is one (a test's price table can be)."""

    @property
    def label(self) -> str: ...

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame: ...


def price_in(level: str) -> float | None:
    """The first price in a level's text, a stop's or an entry's ("$865.5 (-4%)" -> 865.5, "2,950.39"
    -> 2950.39), or None when it gives none ("n/a", "trailing 5%")."""
    text = _DATE.sub(" ", level or "")
    for match in _NUMBER.finditer(text):
        if _NOT_A_PRICE.match(text, match.end()):
            continue
        price = float(match[1].replace(",", ""))
        return price if price > 0 else None
    return None


def verdict(signal: Signal, alpha: float) -> Verdict:
    """BUY is right when the stock beat its benchmark, SELL when it lagged, HOLD when it did neither by
    more than HOLD_BAND."""
    if signal == "BUY":
        right = alpha > 0
    elif signal == "SELL":
        right = alpha < 0
    else:
        right = abs(alpha) <= HOLD_BAND
    return "right" if right else "wrong"


def last_close_day(today: date) -> date:
    """The last day whose close is final as of `today`. On the real today (in New York, whatever the
    server's own zone), or a `today` a client put later, a live vendor's row for that day is the
    price so far, not a close: settling on it would score the call once, for good, on a number the
    market had not finished making. A past `today` (a backtest, a test) is a day already closed."""
    real = clock.now_in(NEW_YORK).date()
    return real - timedelta(days=1) if today >= real else today


def is_due(call: Call, today: date) -> bool:
    """Whether a settlement pass should try the call: not settled, and its window on the listing's own
    exchange calendar is over."""
    if call.settled:
        return False
    try:
        trade = date.fromisoformat(call.trade_date)
    except ValueError:
        return False
    return last_close_day(today) >= due_date(trade, sessions(call.horizon), call.ticker)


@dataclass(frozen=True)
class _Bar:
    close: float
    high: float | None
    low: float | None


def _bars(frame: pd.DataFrame, today: date) -> dict[date, _Bar]:
    """The vendor's rows by date, up to today; a row without a finite close is no price row (a session
    the vendor has no price for is not priced by us either)."""
    out: dict[date, _Bar] = {}
    for stamp, row in frame.iterrows():
        day = pd.Timestamp(stamp).date()
        close = finite(row.get("close"))
        if close is not None and day <= today:
            out[day] = _Bar(close, finite(row.get("high")), finite(row.get("low")))
    return out


def _flat(stock: dict[date, _Bar]) -> dict[date, _Bar]:
    """A benchmark that does not move, on the stock's own days: what "no benchmark" scores against."""
    return {day: _Bar(1.0, 1.0, 1.0) for day in stock}


def _sensible_stop(signal: Signal, price: float | None, entry: float) -> float | None:
    """A stop read from the judge's words only when it is on the losing side of the entry (below it
    for a BUY, above for a SELL): one on the wrong side was not a price ("7-8% below entry" read as
    7) and would count as hit on the first session."""
    if price is None or (signal == "BUY" and price >= entry) or (signal == "SELL" and price <= entry):
        return None
    return price


def _stop_hit(signal: Signal, stop: float | None, bars: dict[date, _Bar], window: list[date]) -> str | None:
    """The first session of the window (after the trade date) whose low (BUY) or high (SELL) reached the stop."""
    if stop is None or signal == "HOLD":
        return None
    for day in window:
        bar = bars[day]
        if signal == "BUY" and bar.low is not None and bar.low <= stop:
            return day.isoformat()
        if signal == "SELL" and bar.high is not None and bar.high >= stop:
            return day.isoformat()
    return None


def _pending(call: Call, reason: str) -> Call:
    return call.model_copy(update={"outcome": None, "pending": reason})


def settle(call: Call, vendor: Prices, today: date, *, now: datetime | None = None) -> Call:
    """The call scored, or still pending with the reason (see the module docstring); a settled call is
    returned as it is."""
    if call.settled:
        return call
    if call.data and call.data != vendor.label:  # a demo call is not scored on live prices, nor the reverse
        return _pending(call, f"made on {call.data}; this desk reads {vendor.label}, so it is scored only "
                              "when the desk runs on that data again")
    try:
        trade = date.fromisoformat(call.trade_date)
    except ValueError:
        return _pending(call, f"its trade date {call.trade_date!r} cannot be read")
    n = sessions(call.horizon)
    due = due_date(trade, n, call.ticker)
    today = last_close_day(today)
    if today < due:  # no vendor call: this runs at the start of every analysis
        return _pending(call, f"settles on or after {due.isoformat()} ({n} trading days after the trade date)")
    benchmark = benchmark_for(call.ticker) if call.benchmark is None else call.benchmark  # as recorded
    try:
        stock = _bars(vendor.ohlcv(call.ticker, trade, today), today)
        # No benchmark (a currency pair, BTC-USD itself): the call is scored on its own return.
        index = _bars(vendor.ohlcv(benchmark, trade, today), today) if benchmark else _flat(stock)
    except Exception as err:  # VendorError or anything else the vendor raised: tried again at the next pass
        return _pending(call, f"the data vendor failed: {str(err) or type(err).__name__}; will retry")
    for symbol, bars in ((call.ticker, stock), (benchmark, index)):
        if trade not in bars:
            return _pending(call, f"no close for {symbol} on {trade.isoformat()} from {vendor.label}")
    after = sorted(day for day in stock if day > trade)
    if len(after) < n:
        return _pending(call, f"the data has only {len(after)} of {n} sessions after {trade.isoformat()} "
                              f"for {call.ticker} from {vendor.label}; will retry")
    window = after[:n]
    end = window[-1]
    if end not in index:
        return _pending(call, f"no close for {benchmark} on {end.isoformat()} from {vendor.label}")
    raw_return = stock[end].close / stock[trade].close - 1
    benchmark_return = index[end].close / index[trade].close - 1
    alpha = raw_return - benchmark_return
    price = _sensible_stop(call.signal, price_in(call.stop), stock[trade].close)
    outcome = Outcome(
        settle_date=end.isoformat(), sessions=n, entry_close=stock[trade].close, exit_close=stock[end].close,
        raw_return=raw_return, benchmark=benchmark, benchmark_return=benchmark_return, alpha=alpha,
        stop_price=price, stop_hit=_stop_hit(call.signal, price, stock, window),
        verdict=verdict(call.signal, alpha), settled_at=(now or clock.now()).isoformat(),
    )
    return call.model_copy(update={"outcome": outcome, "pending": ""})
