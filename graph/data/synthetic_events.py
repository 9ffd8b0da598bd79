"""The synthetic vendor's calendar: quarterly earnings, dividends for some companies and funds, rare splits.

Point in time by construction: every event has the day it was announced, drawn from the symbol and the
event (SHA-256, as the rest of the synthetic vendor), and :func:`scheduled` answers only what was announced
on or before the day asked. An earnings date is announced 14-34 days before it, a dividend's ex-date 21-35
days before it (with its payment date and amount), a split 30-60 days before it, so a backtest day sees a
later announcement only from that day on.

* **Earnings**: a company's quarter reported on the day its statements are filed (30-45 days after the
  quarter ends: :mod:`graph.data.synthetic_fundamentals`'s rule), a weekend moved to the Friday before.
  Nothing for a fund, an index, a coin, a currency pair or a future.
* **Dividends**: quarterly for a company with a dividend yield (``_traits``) and a fund with a
  distribution yield (the fund's profile): the ex-date in the middle month of the quarter, paid 14-21 days
  later; the amount a quarter of the yield on the close of the announcement day (known then).
* **Splits**: about one company-year in thirty has one (2:1, 3:1 or 4:1); the price path is as if adjusted
  for it, as Yahoo's is.

See :mod:`graph.data.synthetic`.
"""
from __future__ import annotations

from datetime import date, timedelta

import pandas as pd

from graph.core.assets import AssetClass
from graph.data.synthetic_company import _between, _pick, _traits, _unit
from graph.data.synthetic_prices import _close_series
from graph.data.vendor import Event

SOURCE = "synthetic"
_SPLIT_ODDS = 1 / 30
_RATIOS = ("2:1", "3:1", "4:1")
_MIN_FUND_YIELD = 0.002  # a fund yielding less distributes nothing worth scheduling


def _weekday_before(day: date) -> date:
    return day - timedelta(days=max(0, day.weekday() - 4))


def _weekday_after(day: date) -> date:
    return day + timedelta(days=(7 - day.weekday()) % 7 if day.weekday() > 4 else 0)


def _quarter_ends(first: date, last: date) -> list[date]:
    """Quarter ends from the quarter before ``first``'s year to the one after ``last``."""
    return [d.date() for d in pd.date_range(date(first.year - 1, 1, 1), date(last.year + 1, 12, 31), freq="QE")]


def _earnings(symbol: str, quarter_end: date) -> Event:
    filed = quarter_end + timedelta(days=30 + int(_unit(symbol, "filed", quarter_end) * 16))
    day = _weekday_before(filed)
    announced = day - timedelta(days=14 + int(_unit(symbol, "earnings-announced", quarter_end) * 21))
    return Event("earnings", day, announced, source=SOURCE)


def _close_on(symbol: str, day: date) -> float | None:
    closes = _close_series(symbol).loc[: pd.Timestamp(day)]
    return float(closes.iloc[-1]) if len(closes) else None


def _dividends(symbol: str, quarter_end: date, annual_yield: float) -> list[Event]:
    middle = quarter_end - timedelta(days=45)  # about the middle month's middle
    ex = _weekday_after(middle.replace(day=8) + timedelta(days=int(_unit(symbol, "ex-day", quarter_end) * 14)))
    announced = ex - timedelta(days=21 + int(_unit(symbol, "dividend-announced", quarter_end) * 15))
    paid = _weekday_after(ex + timedelta(days=14 + int(_unit(symbol, "paid", quarter_end) * 8)))
    close = _close_on(symbol, announced)
    amount = round(annual_yield * close / 4, 4) if close else None
    return [Event("ex_dividend", ex, announced, amount=amount, source=SOURCE),
            Event("dividend", paid, announced, amount=amount, source=SOURCE)]


def _split(symbol: str, year: int) -> Event | None:
    if _unit(symbol, "split?", year) >= _SPLIT_ODDS:
        return None
    day = _weekday_after(date(year, 1, 15) + timedelta(days=int(_unit(symbol, "split-day", year) * 330)))
    announced = day - timedelta(days=30 + int(_unit(symbol, "split-announced", year) * 31))
    return Event("split", day, announced, ratio=_pick(_RATIOS, symbol, "split-ratio", year), source=SOURCE)


def _dividend_yield(symbol: str, kind: AssetClass) -> float | None:
    if kind is AssetClass.EQUITY:
        return _traits(symbol).dividend_yield
    if kind is AssetClass.FUND:  # the same draw as the fund's profile (synthetic_assets.fund_facts)
        fund_yield = round(_between(0.0, 0.025, symbol, "fund-yield"), 4)
        return fund_yield if fund_yield >= _MIN_FUND_YIELD else None
    return None


def scheduled(symbol: str, kind: AssetClass, as_of: date, until: date) -> list[Event]:
    """The events dated in [as_of, until] that were announced by ``as_of``, soonest first."""
    if kind not in (AssetClass.EQUITY, AssetClass.FUND) or until < as_of:
        return []
    events: list[Event] = []
    yielding = _dividend_yield(symbol, kind)
    for quarter_end in _quarter_ends(as_of, until):
        if kind is AssetClass.EQUITY:
            events.append(_earnings(symbol, quarter_end))
        if yielding:
            events += _dividends(symbol, quarter_end, yielding)
    if kind is AssetClass.EQUITY:
        events += [e for year in range(as_of.year, until.year + 1) if (e := _split(symbol, year))]
    seen = [e for e in events if as_of <= e.day <= until and e.announced is not None and e.announced <= as_of]
    return sorted(seen, key=lambda e: (e.day, e.kind))
