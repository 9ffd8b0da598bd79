"""A backtest lays its days on the class's calendar (issue 37, point 2): BTC-USD every day, weekends too;
EURUSD=X every weekday, US holidays too; gold (GC=F) CME's sessions. Fri 5 July 2024 to Mon 8 July 2024, with
Thursday 4 July (Independence Day: the NYSE closed) before it."""
from __future__ import annotations

from datetime import date

import pandas as pd

from graph.backtest.plan import trading_days
from graph.backtest.result import _calendar_market, closes
from graph.data.synthetic import SyntheticVendor
from tests.backtest.conftest import MissingDay


def test_each_class_has_its_calendar() -> None:
    assert [_calendar_market(t) for t in ("BTC-USD", "EURUSD=X", "GC=F", "NVDA", "SPY", "^GSPC", "0700.HK", "VOD.L")] \
        == ["CRYPTO", "FX", "CME", "US", "US", "US", "HK", None]


def test_a_bitcoin_backtest_runs_on_weekends() -> None:
    days = trading_days(SyntheticVendor(), "BTC-USD", date(2024, 7, 4), date(2024, 7, 8))
    assert [d.isoformat() for d in days] == ["2024-07-04", "2024-07-05", "2024-07-06", "2024-07-07", "2024-07-08"]
    _, window = closes(SyntheticVendor(), "BTC-USD", date(2024, 7, 4), date(2024, 7, 8))
    assert list(window.index) == ["2024-07-04", "2024-07-05", "2024-07-06", "2024-07-07", "2024-07-08"]
    assert not window.isna().any()


def test_a_missing_saturday_is_a_gap_for_bitcoin() -> None:
    _, window = closes(MissingDay("2024-07-06"), "BTC-USD", date(2024, 7, 5), date(2024, 7, 8))
    assert list(window.index) == ["2024-07-05", "2024-07-06", "2024-07-07", "2024-07-08"]
    assert [d for d in window.index if pd.isna(window[d])] == ["2024-07-06"]


def test_a_currency_pair_trades_on_the_fourth_of_july_and_not_at_the_weekend() -> None:
    _, window = closes(MissingDay("2024-07-04"), "EURUSD=X", date(2024, 7, 3), date(2024, 7, 8))
    assert list(window.index) == ["2024-07-03", "2024-07-04", "2024-07-05", "2024-07-08"]
    assert [d for d in window.index if pd.isna(window[d])] == ["2024-07-04"]  # a weekday FX trades: a gap
