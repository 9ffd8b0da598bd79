"""Trading-day arithmetic, per market.

Analyses are always run "as of" a trading day: if the user asks about a
weekend or an exchange holiday we fall back to the last session that actually
traded *on the listing's own exchange*. The market is a code as
``graph.request.listing_codes.market_of`` gives it (US, HK, CN, TW, JP); core
does not import request, so callers pass the string in.

* US (and any market without a calendar here): the NYSE's full-day closures
  from the ``holidays`` package, which also lists one-off closures (e.g. the
  2025-01-09 national day of mourning). Fast, and no heavy import.
* HK, CN, JP, TW: the exchange's calendar from ``exchange-calendars`` (XHKG;
  XSHG for the whole mainland, Shanghai and Shenzhen close on the same days and
  the library has no XSHE; XTKS; XTAI). Importing it costs ~65 CPU-ms with
  pandas already loaded (~0.4 s in a fresh process), and building a calendar
  ~80-100 CPU-ms (Shanghai's ~15), so it is imported and each calendar built
  once, when a listing abroad first asks: the US path never pays it.

A calendar is built from CALENDAR_START (the desk's earliest date) to two years
past today, within what the library knows: Tokyo's data begins in 1997,
Shanghai's at the exchange's opening (1990-12) and ends with the last year the
State Council has announced (mainland holidays are set a year at a time). Outside
that range the ``holidays`` package's calendar of the exchange fills in (it knows
the mainland's next year sooner, but fewer past years and no typhoon closures,
so it is second); where neither knows a year, the market trades Monday to Friday.

Markets that are not an exchange's listings (graph/core/assets.py ``market_of`` names them by asset class):

* CRYPTO: every day is a session, weekends and holidays included; a day is a UTC day (Yahoo's daily
  crypto bars run 00:00-24:00 UTC).
* FX: currencies trade from Sunday 17:00 to Friday 17:00 New York, around the clock. A daily bar is dated by
  the day it ends on (the session opened Sunday evening is Monday's), so the sessions are Monday to Friday,
  holidays included (the interbank market has no exchange holidays); :func:`fx_open` says whether the
  market is open at a given moment.
* CME: commodity futures (GC=F gold on COMEX, CL=F crude on NYMEX) trade on CME Globex, whose sessions
  exchange-calendars knows as CMES (closed on New Year's Day, Good Friday and Christmas; on the other US
  holidays Globex trades a short session, counted as a session here). Outside its range the NYSE's
  holidays stand in, an approximation (weekdays minus exchange holidays).

Used to read dates in chat requests (:mod:`graph.request`: the trade date, and "N trading days
ago" counted in the listing's sessions), to lay out synthetic market data
(:mod:`graph.data.synthetic`), to count a call's holding window (:mod:`graph.track.horizon`, and a
backtest's, :mod:`graph.backtest`), to list a backtest window's sessions (:mod:`graph.backtest.result`)
and to schedule watches (:mod:`graph.watchlist`).
"""

from __future__ import annotations

import importlib
import threading
import warnings
from datetime import date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo

import holidays

from graph.core import clock

__all__ = [
    "CALENDARS",
    "CALENDAR_START",
    "EXCHANGES",
    "closures",
    "fx_open",
    "is_trading_day",
    "last_trading_day",
    "next_trading_day",
    "nyse_holidays",
    "previous_trading_day",
    "sessions_between",
]

# Bound on how far we walk looking for a session. Real closures are short
# (the longest modern one, after 9/11, was four sessions; mainland China's
# Golden Week is five weekdays), so 30 days is ample and only guarantees termination.
_MAX_WALK_DAYS = 30

# The desk's earliest date (graph.request.date_hits.MIN_DATE, the synthetic series' start):
# calendars are built from here, not from exchange-calendars' default of 20 years back.
CALENDAR_START = date(1990, 1, 1)
_YEARS_AHEAD = 2  # a call's window reaches a year past its trade date; one more for margin

# Market code (listing_codes.market_of) -> its exchange's name in exchange-calendars, and in `holidays`
# (the fallback outside exchange-calendars' range).
EXCHANGES: dict[str, tuple[str, str]] = {
    "HK": ("XHKG", "XHKG"),  # Hong Kong Exchanges
    "CN": ("XSHG", "XSHG"),  # Shanghai; Shenzhen keeps the same holidays
    "JP": ("XTKS", "XJPX"),  # Tokyo
    "TW": ("XTAI", "XTAI"),  # Taiwan
    # Commodity futures on CME Globex (COMEX, NYMEX, CBOT share its sessions); `holidays` has no CME
    # calendar, so past exchange-calendars' range the NYSE's holidays approximate it.
    "CME": ("CMES", "NYSE"),
}

# Markets by asset class rather than exchange (graph/core/assets.py): crypto trades every day; currencies
# every weekday (Sunday evening to Friday evening in New York, dated by the day a session ends).
EVERY_DAY = "CRYPTO"
WEEKDAYS_ONLY = "FX"
CALENDARS = frozenset({EVERY_DAY, WEEKDAYS_ONLY})
NEW_YORK = ZoneInfo("America/New_York")
_FX_OPENS = time(17, 0)  # Sunday, New York
_FX_CLOSES = time(17, 0)  # Friday, New York


@cache
def nyse_holidays(year: int) -> frozenset[date]:
    """NYSE full-day closures for one year (cached: building them is slow-ish)."""
    return frozenset(holidays.financial_holidays("NYSE", years=year).keys())


_LOADING = threading.Lock()  # tools call from worker threads: each calendar is built once
_BUILT: dict[str, tuple[frozenset[date], date, date]] = {}


def _sessions(exchange: str) -> tuple[frozenset[date], date, date]:
    """The exchange's sessions, and the first and last day the calendar covers."""
    with _LOADING:
        if exchange not in _BUILT:
            _BUILT[exchange] = _build(exchange)
        return _BUILT[exchange]


def _build(exchange: str) -> tuple[frozenset[date], date, date]:
    # Heavy (pandas and every exchange's rules): imported only when a listing abroad first asks.
    # exchange-calendars names each module and class after the exchange
    # (exchange_calendar_xhkg.XHKGExchangeCalendar).
    module = importlib.import_module(f"exchange_calendars.exchange_calendar_{exchange.lower()}")
    calendar_class = getattr(module, f"{exchange}ExchangeCalendar")
    lowest, highest = calendar_class.bound_min(), calendar_class.bound_max()
    start = max(CALENDAR_START, lowest.date()) if lowest is not None else CALENDAR_START
    end = date(clock.today().year + _YEARS_AHEAD, 12, 31)
    if highest is not None:
        end = min(end, highest.date())
    with warnings.catch_warnings():
        # exchange-calendars 4.13 still uses pandas APIs that pandas 3 deprecates: its noise, not ours
        warnings.simplefilter("ignore", DeprecationWarning)
        calendar = calendar_class(start=start.isoformat(), end=end.isoformat())
    return frozenset(day.date() for day in calendar.sessions), start, end


@cache
def closures(year: int, market: str = "US") -> frozenset[date]:
    """The weekdays of one year on which the market does not trade (its holidays)."""
    if market in CALENDARS:
        return frozenset()  # crypto and currencies trade on every weekday
    if market not in EXCHANGES:
        return nyse_holidays(year)
    exchange, fallback = EXCHANGES[market]
    sessions, first, last = _sessions(exchange)
    beyond: set[date] = set()
    if not first <= date(year, 1, 1) <= date(year, 12, 31) <= last:
        # Past exchange-calendars' range (the mainland after the last announced year) `holidays` may know more.
        beyond = {d for d in holidays.financial_holidays(fallback, years=year) if not first <= d <= last}
    out = set()
    day = max(date(year, 1, 1), first)
    while day.year == year and day <= last:
        if day not in sessions:
            out.add(day)
        day += timedelta(days=1)
    return frozenset(d for d in out | beyond if d.weekday() < 5)


def is_trading_day(d: date, market: str = "US") -> bool:
    """True when the market has a regular session on ``d`` (weekday, not a holiday; crypto: every day)."""
    if market == EVERY_DAY:
        return True
    if d.weekday() >= 5:  # Saturday=5, Sunday=6
        return False
    return d not in closures(d.year, market)


def fx_open(moment: datetime) -> bool:
    """Is the currency market open at ``moment`` (an aware datetime)? Sunday 17:00 to Friday 17:00, New York."""
    local = moment.astimezone(NEW_YORK)
    weekday, clock_time = local.weekday(), local.time()
    if weekday == 5:
        return False  # Saturday
    if weekday == 6:
        return clock_time >= _FX_OPENS  # Sunday evening
    return weekday < 4 or clock_time < _FX_CLOSES  # Monday-Thursday, Friday until 17:00


def last_trading_day(on_or_before: date, market: str = "US") -> date:
    """The latest trading day that is ``on_or_before`` the given date."""
    d = on_or_before
    for _ in range(_MAX_WALK_DAYS):
        if is_trading_day(d, market):
            return d
        if d == date.min:
            break
        d -= timedelta(days=1)
    return d  # only reached on absurd input; keeps the function total


def previous_trading_day(d: date, market: str = "US") -> date:
    """The latest trading day strictly before ``d``."""
    if d == date.min:
        return d
    return last_trading_day(d - timedelta(days=1), market)


def next_trading_day(d: date, market: str = "US") -> date:
    """The earliest trading day strictly after ``d``."""
    nxt = d
    for _ in range(_MAX_WALK_DAYS):
        if nxt == date.max:
            break
        nxt += timedelta(days=1)
        if is_trading_day(nxt, market):
            return nxt
    return nxt


def sessions_between(first: date, last: date, market: str = "US") -> list[date]:
    """The market's trading days from ``first`` through ``last``, both included, in order (none when
    ``last`` is before ``first``)."""
    out: list[date] = []
    day = first
    while day <= last:
        if is_trading_day(day, market):
            out.append(day)
        if day == date.max:
            break
        day += timedelta(days=1)
    return out
