"""Alpha against a benchmark that fits the class (issue 37, point 4), worked out by hand:

* crypto against BTC-USD, and BTC-USD itself against none (its own return);
* a currency pair against none: a pair is already a relative price, and a dollar index would mostly be the
  pair's own move inverted (EURUSD=X);
* an index against the fund that tracks it (^GSPC: SPY), a commodity future against a commodity index fund
  (GC=F: DBC), equities and funds against their market's index as before (SPY itself against none).

Crypto's sessions are every day: a 3-day call on Friday 24 May 2024 settles on Monday 27 (Sat, Sun, Mon);
a currency pair's are weekdays, US Memorial Day (Monday 27) included: Mon 27, Tue 28, Wed 29.
"""
from __future__ import annotations

from datetime import date

import pytest

from graph.track.horizon import NO_BENCHMARK, benchmark_for, due_date
from graph.track.settle import settle
from graph.track.summary import benchmark_name
from tests.track.test_settle import NOW, TableVendor, call

CLASS_TABLE = {
    "BTC-USD": {
        "2024-05-24": (59800, 60100, 59700, 60000),   # entry 60,000
        "2024-05-25": (60000, 60400, 59900, 60300),
        "2024-05-26": (60300, 60700, 60200, 60600),
        "2024-05-27": (60600, 61300, 60500, 61200),   # 61,200 / 60,000 - 1 = +2 %
        "2024-05-28": (61200, 61200, 49000, 50000),
    },
    "ETH-USD": {
        "2024-05-24": (2990, 3010, 2980, 3000),       # entry 3,000
        "2024-05-25": (3000, 3040, 2995, 3030),
        "2024-05-26": (3030, 3070, 3020, 3060),
        "2024-05-27": (3060, 3160, 3050, 3150),       # 3,150 / 3,000 - 1 = +5 %: alpha +5 % - 2 % = +3 %
        "2024-05-28": (3150, 3150, 1990, 2000),
    },
    "EURUSD=X": {
        "2024-05-24": (1.0790, 1.0810, 1.0780, 1.0800),   # entry 1.0800
        "2024-05-27": (1.0800, 1.0860, 1.0790, 1.0854),
        "2024-05-28": (1.0854, 1.0910, 1.0850, 1.0908),
        "2024-05-29": (1.0908, 1.0970, 1.0900, 1.0962),   # 1.0962 / 1.0800 - 1 = +1.5 %
    },
}


@pytest.mark.parametrize(("ticker", "benchmark"), [
    ("ETH-USD", "BTC-USD"), ("SOL-USD", "BTC-USD"), ("BTC-USD", NO_BENCHMARK), ("EURUSD=X", NO_BENCHMARK),
    ("JPY=X", NO_BENCHMARK), ("^GSPC", "SPY"), ("^NDX", "QQQ"), ("^HSI", "2800.HK"), ("GC=F", "DBC"),
    ("CL=F", "DBC"), ("QQQ", "SPY"), ("SPY", NO_BENCHMARK), ("NVDA", "SPY"), ("0700.HK", "^HSI"),
])
def test_each_class_is_measured_against_what_fits_it(ticker: str, benchmark: str) -> None:
    assert benchmark_for(ticker) == benchmark


def test_a_crypto_window_counts_weekends_and_a_currency_window_us_holidays() -> None:
    assert due_date(date(2024, 5, 24), 3, "ETH-USD") == date(2024, 5, 27)
    assert due_date(date(2024, 5, 24), 3, "EURUSD=X") == date(2024, 5, 29)


def _settled(ticker: str, today: date):
    out = settle(call(ticker, "BUY", horizon="3 days", trade_date="2024-05-24"), TableVendor(today, CLASS_TABLE),
                 today, now=NOW)
    assert out.outcome is not None, out.pending
    return out.outcome


def test_ether_against_bitcoin() -> None:
    o = _settled("ETH-USD", date(2024, 5, 27))
    assert (o.settle_date, o.benchmark) == ("2024-05-27", "BTC-USD")
    assert o.raw_return == pytest.approx(0.05) and o.benchmark_return == pytest.approx(0.02)
    assert o.alpha == pytest.approx(0.03) and o.verdict == "right"


def test_bitcoin_itself_is_scored_on_its_own_return_and_says_so() -> None:
    o = _settled("BTC-USD", date(2024, 5, 27))
    assert (o.benchmark, o.benchmark_return) == ("", 0.0)
    assert o.alpha == pytest.approx(0.02) == o.raw_return
    assert o.against == "no benchmark (its own return)"
    assert benchmark_name(o.benchmark, "en") == "no benchmark (its own return)"
    assert benchmark_name(o.benchmark, "zh") == "无基准（按自身收益）"
    assert benchmark_name("BTC-USD", "zh") == "BTC-USD"


def test_a_currency_pair_against_none() -> None:
    o = _settled("EURUSD=X", date(2024, 5, 29))
    assert (o.settle_date, o.benchmark) == ("2024-05-29", "")
    assert o.alpha == pytest.approx(0.015)
