"""A holding horizon read as trading sessions, and the day it ends: the one reading of the Risk Judge's
horizon ("2-6 weeks") shared by the track record (graph/track/horizon.py, which states the rule), the paper
book, the backtest, the events in a call's window (graph/tools/events.py) and the demo's Trader and Judge.
"""
from __future__ import annotations

import math
import re
from datetime import date
from functools import lru_cache

from .assets import market_of
from .trading_days import next_trading_day

DEFAULT_SESSIONS = 5   # a week: the window when the judge gave no horizon, or one that cannot be read
MAX_SESSIONS = 252     # a year of sessions

# Sessions per unit, by the unit's spellings.
_UNITS: dict[str, int] = {
    **dict.fromkeys(("d", "day", "days", "session", "sessions"), 1),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 5),
    **dict.fromkeys(("m", "mo", "mos", "month", "months"), 21),
    **dict.fromkeys(("q", "qtr", "qtrs", "quarter", "quarters"), 63),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), 252),
}
_WORDS: dict[str, float] = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
_NUMBER = r"\d+(?:\.\d+)?|" + "|".join(_WORDS)
# "<n>[ to|-|– <m>] [trading|market] <unit>": the longest unit spellings first, so "months" is not read as "m".
_SPAN = re.compile(
    rf"\b(?P<low>{_NUMBER})(?:\s*(?:-|–|—|to)\s*(?P<high>{_NUMBER}))?\s*(?:trading\s+|market\s+)?"
    rf"(?P<unit>{'|'.join(sorted(_UNITS, key=len, reverse=True))})\b",
    re.IGNORECASE,
)


def _number(text: str) -> float:
    return _WORDS.get(text.lower()) or float(text)


def sessions(horizon: str) -> int:
    """The horizon in trading sessions, by the rule graph/track/horizon.py states."""
    spans = [_number(m["high"] or m["low"]) * _UNITS[m["unit"].lower()] for m in _SPAN.finditer(horizon or "")]
    if not spans:
        return DEFAULT_SESSIONS
    return min(max(math.ceil(max(spans)), 1), MAX_SESSIONS)


# Remembered: the calendars are fixed, so the day depends on the arguments alone. Every analysis's settlement
# pass asks it for each of the user's open calls (graph/track/settle.py `is_due`), a walk of up to a year of
# sessions each, on the critical path of the run's first step, and again for the same calls at every analysis.
@lru_cache(maxsize=4096)
def due_date(trade_date: date, n: int, ticker: str = "") -> date:
    """The n-th trading day after the trade date on the ticker's own exchange (the NYSE for a US one, or
    none given): when a call of n sessions settles, as told to the user ("settles on or after …")."""
    market = market_of(ticker.strip().upper()) if ticker else "US"
    day = trade_date
    for _ in range(max(n, 0)):
        day = next_trading_day(day, market)
    return day
