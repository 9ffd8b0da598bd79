"""Reading the judge's horizon into sessions, the benchmark of a ticker, and when a call settles."""
from __future__ import annotations

from datetime import date

import pytest

from graph.track.horizon import DEFAULT_SESSIONS, benchmark_for, due_date, sessions


@pytest.mark.parametrize("horizon, expected", [
    ("3 days", 3), ("3 trading days", 3), ("3d", 3), ("3 D", 3), ("1 day", 1), ("10 sessions", 10),
    ("2 weeks", 10), ("1 week", 5), ("2w", 10), ("a week", 5),
    ("1 month", 21), ("3m", 63), ("6 months", 126),
    ("1 quarter", 63), ("3 months", 63), ("1 year", 252),
    # a range counts its upper end: the window is over when the longest holding stated is over
    ("2-6 weeks", 30), ("2 to 6 weeks", 30), ("2–6 weeks", 30), ("1 week to 3 months", 63),
    ("hold 3-5 trading days, review after earnings", 5),
    ("1.5 weeks", 8),                     # 7.5 sessions, rounded up
    ("0 days", 1), ("2 years", 252),      # clamped to [1, 252]
    ("n/a", DEFAULT_SESSIONS), ("", DEFAULT_SESSIONS), ("until earnings", DEFAULT_SESSIONS),
    ("long term, whatever", DEFAULT_SESSIONS), ("Q3", DEFAULT_SESSIONS),
])
def test_sessions(horizon: str, expected: int) -> None:
    assert sessions(horizon) == expected


def test_default_is_a_week() -> None:
    assert DEFAULT_SESSIONS == 5


@pytest.mark.parametrize("ticker, expected", [
    ("NVDA", "SPY"), ("nvda", "SPY"), ("BRK-B", "SPY"), ("BRK.B", "SPY"), ("XYZ.QQ", "SPY"), ("", "SPY"),
    ("0700.HK", "^HSI"), ("600519.SS", "000300.SS"), ("000001.SZ", "000300.SS"), ("7203.T", "^N225"),
    ("HSBA.L", "^FTSE"), ("SAP.DE", "^GDAXI"), ("MC.PA", "^FCHI"), ("SHOP.TO", "^GSPTSE"), ("BHP.AX", "^AXJO"),
    ("005930.KS", "^KS11"), ("RELIANCE.NS", "^NSEI"), ("500325.BO", "^NSEI"), ("sap.de", "^GDAXI"),
])
def test_benchmark_for(ticker: str, expected: str) -> None:
    assert benchmark_for(ticker) == expected


@pytest.mark.parametrize("trade, n, expected", [
    (date(2024, 5, 22), 3, date(2024, 5, 28)),   # Thu 23, Fri 24, (weekend, Memorial Day 27) Tue 28
    (date(2024, 5, 24), 1, date(2024, 5, 28)),
    (date(2024, 5, 22), 5, date(2024, 5, 30)),
    (date(2024, 5, 22), 0, date(2024, 5, 22)),
])
def test_due_date_counts_nyse_sessions(trade: date, n: int, expected: date) -> None:
    assert due_date(trade, n) == expected


def test_a_settlement_pass_walks_each_open_calls_sessions_once(monkeypatch) -> None:
    """due_date is remembered (graph/core/holding.py): every analysis's settlement pass asks it for each of the
    user's open calls, and the answer is the walk's, on every exchange, whatever was asked before."""
    import graph.core.holding as holding
    from graph.core.trading_days import next_trading_day

    def walked(trade: date, n: int, ticker: str) -> date:
        market = holding.market_of(ticker.strip().upper()) if ticker else "US"
        day = trade
        for _ in range(n):
            day = next_trading_day(day, market)
        return day

    cases = [(date.fromordinal(date(2024, 5, 6).toordinal() + k), n, ticker)
             for k in range(0, 400, 37) for n in (1, 5, 30, 252)
             for ticker in ("", "NVDA", "7203.T", "BTC-USD", "SAP.DE")]
    holding.due_date.cache_clear()
    assert [due_date(*case) for case in cases] == [walked(*case) for case in cases]
    steps: list[date] = []
    monkeypatch.setattr(holding, "next_trading_day",
                        lambda d, market="US": steps.append(d) or next_trading_day(d, market))
    assert [due_date(*case) for case in cases] == [walked(*case) for case in cases] and steps == []
