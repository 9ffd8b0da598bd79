"""The synthetic vendor: deterministic, window-independent, honest about dates."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graph.core.trading_days import is_trading_day, nyse_holidays
from graph.data import synthetic_prices
from graph.data.synthetic import SyntheticVendor
from graph.data.tone import headline_tone
from graph.data.vendor import FILED_ATTR, NewsItem, Post, Vendor, VendorError
from tests.support.clock import python_path

TRADE = date(2024, 5, 1)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def vendor() -> SyntheticVendor:
    return SyntheticVendor()


def test_satisfies_vendor_protocol(vendor):
    assert isinstance(vendor, Vendor)
    assert vendor.name == "synthetic"
    assert "synthetic" in vendor.label


# ---- determinism ------------------------------------------------------------


def test_same_inputs_give_identical_outputs():
    first, second = SyntheticVendor(), SyntheticVendor()
    start = TRADE - timedelta(days=30)
    pd.testing.assert_frame_equal(first.ohlcv("NVDA", start, TRADE), second.ohlcv("NVDA", start, TRADE))
    assert first.profile("NVDA", TRADE) == second.profile("NVDA", TRADE)
    pd.testing.assert_frame_equal(
        first.statements("NVDA", TRADE, "income"), second.statements("NVDA", TRADE, "income")
    )
    assert first.news("NVDA", start, TRADE) == second.news("NVDA", start, TRADE)
    assert first.macro_news(start, TRADE) == second.macro_news(start, TRADE)
    assert first.social_posts("NVDA", start, TRADE) == second.social_posts("NVDA", start, TRADE)
    assert first.recommendations("NVDA", TRADE) == second.recommendations("NVDA", TRADE)


def test_deterministic_across_processes():
    """Seeds come from hashlib, so Python's per-process hash salt is irrelevant."""
    script = (
        "from datetime import date; from graph.data.synthetic import SyntheticVendor as V;"
        "v = V(); f = v.ohlcv('NVDA', date(2024, 4, 1), date(2024, 5, 1));"
        "print(f['close'].tolist(), v.news('NVDA', date(2024, 4, 1), date(2024, 5, 1))[0].title)"
    )
    outputs = set()
    for salt in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": salt, "PYTHONPATH": python_path(REPO)}
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_ticker_is_case_and_space_insensitive(vendor):
    pd.testing.assert_frame_equal(vendor.ohlcv(" nvda ", TRADE, TRADE), vendor.ohlcv("NVDA", TRADE, TRADE))


# ---- tickers differ -----------------------------------------------------------


def test_different_tickers_differ(vendor):
    start = TRADE - timedelta(days=60)
    nvda = vendor.ohlcv("NVDA", start, TRADE)["close"]
    aapl = vendor.ohlcv("AAPL", start, TRADE)["close"]
    assert not np.allclose(nvda.to_numpy(), aapl.to_numpy())
    assert vendor.profile("NVDA", TRADE) != vendor.profile("AAPL", TRADE)


def test_tickers_trend_both_ways_at_one_date(vendor):
    """Demo decisions must be able to differ: some tickers up, some down."""
    changes = []
    for ticker in ("AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOG", "META", "JPM", "XOM", "KO"):
        closes = vendor.ohlcv(ticker, TRADE - timedelta(days=95), TRADE)["close"]
        changes.append(closes.iloc[-1] / closes.iloc[0] - 1)
    assert min(changes) < -0.05
    assert max(changes) > 0.05


# ---- window independence ------------------------------------------------------------


def test_value_at_a_date_does_not_depend_on_window(vendor):
    day = pd.Timestamp("2024-03-15")
    narrow = vendor.ohlcv("NVDA", date(2024, 3, 14), date(2024, 3, 15))
    wide = vendor.ohlcv("NVDA", date(2020, 1, 1), TRADE)
    from_start = vendor.ohlcv("NVDA", date(1990, 1, 1), date(2024, 3, 20))
    pd.testing.assert_series_equal(narrow.loc[day], wide.loc[day])
    pd.testing.assert_series_equal(narrow.loc[day], from_start.loc[day])


def test_longer_generated_series_keeps_its_prefix():
    """Extending the series (a later year) must not rewrite history."""
    short = synthetic_prices._daily_path("NVDA", 2025)
    long = synthetic_prices._daily_path("NVDA", 2031)
    pd.testing.assert_frame_equal(short, long.loc[short.index])


def test_news_and_posts_do_not_depend_on_window(vendor):
    day = date(2024, 4, 24)
    wide_news = [n for n in vendor.news("NVDA", date(2024, 4, 1), TRADE) if n.published.date() == day]
    assert vendor.news("NVDA", day, day) == wide_news
    wide_posts = [p for p in vendor.social_posts("NVDA", date(2024, 4, 1), TRADE) if p.created.date() == day]
    assert vendor.social_posts("NVDA", day, day) == wide_posts


# ---- dates are honoured -------------------------------------------------------------


def test_ohlcv_rows_within_window_and_not_after_today(vendor):
    frame = vendor.ohlcv("NVDA", date(2024, 4, 1), TRADE)
    assert frame.index.min() >= pd.Timestamp("2024-04-01")
    assert frame.index.max() == pd.Timestamp(TRADE)
    future = vendor.ohlcv("NVDA", date.today() - timedelta(days=10), date.today() + timedelta(days=60))
    assert future.index.max() <= pd.Timestamp(date.today())


def test_sessions_are_nyse_trading_days(vendor):
    frame = vendor.ohlcv("NVDA", date(2023, 12, 20), date(2024, 7, 10))
    days = set(frame.index.date)
    for holiday in (date(2024, 7, 4), date(2024, 3, 29), date(2023, 12, 25), date(2024, 1, 15)):
        assert holiday not in days  # Independence Day, Good Friday, Christmas, MLK Day
    assert {date(2024, 7, 3), date(2024, 7, 5), date(2024, 3, 28), date(2024, 4, 1)} <= days
    assert all(is_trading_day(day) for day in days)
    # The whole generated path, not just this window.
    path = synthetic_prices._path("NVDA")
    assert not path.index.isin(pd.to_datetime(sorted(nyse_holidays(2001)))).any()
    assert pd.Timestamp("2001-09-11") not in path.index  # one-off closures too
    # Text is only written on sessions.
    assert vendor.ohlcv("NVDA", date(2024, 7, 4), date(2024, 7, 4)).empty
    assert vendor.news("NVDA", date(2024, 7, 4), date(2024, 7, 4)) == []
    assert vendor.social_posts("NVDA", date(2024, 3, 29), date(2024, 3, 29)) == []
    assert vendor.macro_news(date(2023, 12, 25), date(2023, 12, 25)) == []


def test_history_reaches_back_to_1990(vendor):
    frame = vendor.ohlcv("IBM", date(1990, 1, 1), date(1990, 1, 31))
    assert len(frame) >= 20
    assert vendor.ohlcv("IBM", date(1985, 1, 1), date(1985, 12, 31)).empty


def test_bars_are_consistent(vendor):
    frame = vendor.ohlcv("TSLA", date(1990, 1, 1), TRADE)
    assert list(frame.columns) == ["open", "high", "low", "close", "volume"]
    assert (frame["high"] >= frame[["open", "close"]].max(axis=1)).all()
    assert (frame["low"] <= frame[["open", "close"]].min(axis=1)).all()
    assert (frame["low"] > 0).all() and (frame["volume"] > 0).all()
    assert frame.index.is_monotonic_increasing


def test_statements_only_filed_by_as_of(vendor):
    for kind in ("income", "balance", "cashflow"):
        frame = vendor.statements("NVDA", TRADE, kind)
        filed = frame.attrs[FILED_ATTR]
        assert list(frame.columns) == sorted(frame.columns, reverse=True)
        assert set(filed) == set(frame.columns)
        for period, filed_on in filed.items():
            assert filed_on <= pd.Timestamp(TRADE)
            assert 30 <= (filed_on - period).days <= 45
    # Q1 2024 ended 2024-03-31 but is filed 30-45 days later: not known on 2024-04-15.
    assert pd.Timestamp("2024-03-31") not in vendor.statements("NVDA", date(2024, 4, 15), "income").columns
    assert "Total Revenue" in vendor.statements("NVDA", TRADE, "income").index
    assert "Free Cash Flow" in vendor.statements("NVDA", TRADE, "cashflow").index


def test_profile_is_plausible_and_labelled(vendor):
    profile = vendor.profile("NVDA", TRADE)
    for key in ("name", "sector", "industry", "market_cap", "pe", "forward_pe", "pb", "dividend_yield",
                "beta", "profit_margin", "debt_to_equity", "revenue_growth"):
        assert key in profile
    assert profile["source"] == "synthetic"
    assert profile["market_cap"] > 0
    # Market cap follows the price on the as-of date, not today's.
    later = vendor.profile("NVDA", date(2024, 8, 1))
    assert later["market_cap"] != profile["market_cap"]


def test_text_items_are_labelled_synthetic_and_in_window(vendor):
    start = date(2024, 4, 1)
    news = vendor.news("NVDA", start, TRADE) + vendor.macro_news(start, TRADE)
    posts = vendor.social_posts("NVDA", start, TRADE)
    assert news and posts
    assert all(isinstance(n, NewsItem) and start <= n.published.date() <= TRADE for n in news)
    assert all(isinstance(p, Post) and start <= p.created.date() <= TRADE for p in posts)
    assert all(p.source == "synthetic" for p in posts)
    assert all(p.sentiment in ("bullish", "bearish", None) for p in posts)
    assert all(r["date"] <= TRADE and r["source"] == "synthetic" for r in vendor.recommendations("NVDA", TRADE))


def test_text_tone_follows_price_move(vendor):
    """Headlines and posts lean the way the last five sessions moved."""
    start, end = date(2022, 1, 1), date(2023, 12, 31)
    closes = vendor.ohlcv("NVDA", date(2021, 12, 1), end)["close"]
    move = closes / closes.shift(5) - 1
    tones = [(move.loc[pd.Timestamp(n.published.date())], headline_tone(n.title))
             for n in vendor.news("NVDA", start, end)]
    up = [tone for m, tone in tones if m > 0.03]
    down = [tone for m, tone in tones if m < -0.03]
    assert up and down and np.mean(up) > 0.5 and np.mean(down) < -0.5

    posts = vendor.social_posts("NVDA", start, end)
    def moved(p):
        return move.loc[pd.Timestamp(p.created.date())]
    bull_up = [p.sentiment == "bullish" for p in posts if p.sentiment and moved(p) > 0.03]
    bull_down = [p.sentiment == "bullish" for p in posts if p.sentiment and moved(p) < -0.03]
    assert np.mean(bull_up) > 0.6 > 0.4 > np.mean(bull_down)


def test_unknown_ticker_raises_vendor_error(vendor):
    with pytest.raises(VendorError, match="unknown ticker"):
        vendor.ohlcv("not a ticker!", TRADE, TRADE)
    with pytest.raises(VendorError):
        vendor.profile("", TRADE)
