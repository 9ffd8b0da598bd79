"""NYSE trading-day arithmetic.

Analyses are always run "as of" a trading day: if the user asks about a
weekend or an exchange holiday we fall back to the last session that actually
traded. Holidays come from the ``holidays`` package's NYSE calendar, which
also lists one-off closures (e.g. the 2025-01-09 national day of mourning).

Used both to read dates in chat requests (:mod:`graph.request`) and to lay
out synthetic market data (:mod:`graph.data.synthetic`).
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import cache

import holidays

__all__ = [
    "is_trading_day",
    "last_trading_day",
    "next_trading_day",
    "nyse_holidays",
    "previous_trading_day",
]

# Bound on how far we walk looking for a session. Real closures are short
# (the longest modern one, after 9/11, was four sessions), so 30 days is ample
# and only guarantees termination.
_MAX_WALK_DAYS = 30


@cache
def nyse_holidays(year: int) -> frozenset[date]:
    """NYSE full-day closures for one year (cached: building them is slow-ish)."""
    return frozenset(holidays.financial_holidays("NYSE", years=year).keys())


def is_trading_day(d: date) -> bool:
    """True when the NYSE has a regular session on ``d`` (weekday, not a holiday)."""
    if d.weekday() >= 5:  # Saturday=5, Sunday=6
        return False
    return d not in nyse_holidays(d.year)


def last_trading_day(on_or_before: date) -> date:
    """The latest trading day that is ``on_or_before`` the given date."""
    d = on_or_before
    for _ in range(_MAX_WALK_DAYS):
        if is_trading_day(d):
            return d
        if d == date.min:
            break
        d -= timedelta(days=1)
    return d  # only reached on absurd input; keeps the function total


def previous_trading_day(d: date) -> date:
    """The latest trading day strictly before ``d``."""
    if d == date.min:
        return d
    return last_trading_day(d - timedelta(days=1))


def next_trading_day(d: date) -> date:
    """The earliest trading day strictly after ``d``."""
    nxt = d
    for _ in range(_MAX_WALK_DAYS):
        if nxt == date.max:
            break
        nxt += timedelta(days=1)
        if is_trading_day(nxt):
            return nxt
    return nxt
