"""A listing abroad keeps its own exchange's trading days (graph/core/trading_days.py: exchange-calendars'
XHKG, XSHG, XTKS, XTAI) and its own benchmark: the request's trade date, the synthetic vendor's rows, a call's
holding window and its benchmark, and a watch's slots. The US path stays on `holidays` and never imports
exchange-calendars."""
from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from graph.core.assets import _SUFFIX_MARKETS
from graph.core.trading_days import is_trading_day, last_trading_day, next_trading_day, previous_trading_day
from graph.data.synthetic import SyntheticVendor
from graph.data.synthetic_prices import market
from graph.request import parse_request
from graph.request.listing_codes import market_of
from graph.track.calls import Call
from graph.track.horizon import BENCHMARKS, benchmark_for, due_date
from graph.track.settle import settle
from graph.watchlist.rules import EVERY_TRADING_DAY, Rule

HONG_KONG = ZoneInfo("Asia/Hong_Kong")
TODAY = date(2024, 12, 2)


def days(first: str, last: str) -> list[date]:
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return [start + timedelta(n) for n in range((end - start).days + 1)]


# --- the calendars ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("market", "closed", "open_"), [
    # Hong Kong: Lunar New Year (Mon 12, Tue 13 February 2024), Ching Ming (4 April), Buddha's Birthday (15 May)
    ("HK", ["2024-02-12", "2024-02-13", "2024-04-04", "2024-05-15"], ["2024-02-09", "2024-02-14", "2024-05-27"]),
    # mainland China: National Day's Golden Week (1-7 October 2024, the weekdays of it), Spring Festival
    ("CN", ["2024-10-01", "2024-10-02", "2024-10-03", "2024-10-04", "2024-10-07", "2024-02-12"],
     ["2024-09-30", "2024-10-08", "2024-07-04"]),
    # Tokyo: the New Year holidays (1-3 January 2024), Coming of Age Day (8 January)
    ("JP", ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-08"], ["2024-01-04", "2024-01-15"]),
    # Taiwan: Lunar New Year (8-14 February 2024), and a typhoon day (25 July 2024)
    ("TW", ["2024-02-08", "2024-02-14", "2024-07-25"], ["2024-02-05", "2024-02-15"]),
    # New York, unchanged: Thanksgiving and the 2025-01-09 day of mourning; open on the Lunar New Year
    ("US", ["2024-11-28", "2025-01-09", "2024-07-04"], ["2024-02-12", "2024-10-01", "2024-01-02"]),
])
def test_each_market_keeps_its_own_holidays(market: str, closed: list[str], open_: list[str]) -> None:
    assert [d for d in closed if is_trading_day(date.fromisoformat(d), market)] == []
    assert [d for d in open_ if not is_trading_day(date.fromisoformat(d), market)] == []


def test_the_walks_use_the_market_given() -> None:
    assert last_trading_day(date(2024, 2, 13), "HK") == date(2024, 2, 9)
    assert last_trading_day(date(2024, 2, 13)) == date(2024, 2, 13)          # the NYSE traded
    assert next_trading_day(date(2024, 9, 30), "CN") == date(2024, 10, 8)
    assert previous_trading_day(date(2024, 1, 4), "JP") == date(2023, 12, 29)


def test_the_calendars_cover_the_desks_dates() -> None:
    # from the desk's earliest date (1990: exchange-calendars would start 20 years back by default)
    assert not is_trading_day(date(1995, 1, 31), "HK")       # Lunar New Year 1995
    assert not is_trading_day(date(2000, 2, 7), "CN")        # Spring Festival 2000
    # past exchange-calendars' mainland years (it ends with the last announced one), `holidays` fills in
    assert not is_trading_day(date(2027, 10, 1), "CN")
    # a market without a calendar here keeps the NYSE's, as before
    assert not is_trading_day(date(2024, 7, 4), "L")


def test_the_us_path_never_imports_exchange_calendars() -> None:
    code = ("import sys; from datetime import date; from graph.core.trading_days import last_trading_day; "
            "from graph.request import parse_request; last_trading_day(date(2024, 7, 4)); "
            "parse_request('should I buy NVDA on 2024-07-04?', date(2024, 7, 8)); "
            "print('exchange_calendars' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


# --- a request's trade date -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "ticker", "trade"), [
    ("600519.SS 2024-10-03", "600519.SS", date(2024, 9, 30)),     # Golden Week: the mainland's last session
    ("0700.HK 2024-02-13", "0700.HK", date(2024, 2, 9)),          # Lunar New Year, Hong Kong
    ("7203.T 2024-01-03", "7203.T", date(2023, 12, 29)),          # Tokyo's New Year
    ("NVDA 2024-10-03", "NVDA", date(2024, 10, 3)),               # the NYSE traded
])
def test_a_request_falls_back_to_the_listings_last_session(text: str, ticker: str, trade: date) -> None:
    parsed = parse_request(text, TODAY)
    assert (parsed.intent, parsed.ticker, parsed.trade_date) == ("analyze", ticker, trade), parsed.reason
    if trade != parsed.asked_date:
        assert f"last {market_of(ticker)} session" in parsed.reason


def test_a_followup_keeps_the_listings_session() -> None:
    parsed = parse_request("why?", TODAY, has_decision=True, current_ticker="0700.HK", current_date=date(2024, 2, 13))
    assert (parsed.intent, parsed.trade_date) == ("followup", date(2024, 2, 9))


# --- the synthetic vendor ---------------------------------------------------------------------------------------

def test_the_synthetic_rows_of_a_hong_kong_listing_skip_hong_kongs_holidays() -> None:
    vendor = SyntheticVendor()
    rows = {d.date() for d in vendor.ohlcv("0700.HK", date(2024, 2, 1), date(2024, 5, 31)).index}
    expected = {d for d in days("2024-02-01", "2024-05-31") if is_trading_day(d, "HK")}
    assert rows == expected
    assert date(2024, 2, 12) not in rows and date(2024, 4, 4) not in rows
    assert date(2024, 5, 27) in rows                                        # US Memorial Day: Hong Kong trades
    us = {d.date() for d in vendor.ohlcv("NVDA", date(2024, 2, 1), date(2024, 5, 31)).index}
    assert date(2024, 2, 12) in us and date(2024, 5, 27) not in us
    # and what is built from the rows walks the same days (no lookup of a day the series has not)
    assert vendor.social_posts("0700.HK", date(2024, 2, 8), date(2024, 2, 16))
    assert vendor.news("0700.HK", date(2024, 2, 1), date(2024, 2, 29)) is not None


def test_the_synthetic_vendor_reads_markets_as_the_request_does() -> None:
    for suffix in _SUFFIX_MARKETS:
        assert market(f"1234.{suffix}") == market_of(f"1234.{suffix}")
    assert market("NVDA") == market_of("NVDA") == "US"
    assert market("HSBA.L") == "US"                                         # no calendar here: the NYSE's, as before


# --- a call's holding window and benchmark ----------------------------------------------------------------------

def test_a_horizon_counts_the_listings_own_sessions() -> None:
    # 3 sessions after Thu 2024-02-08: Hong Kong trades Fri 9, then Wed 14, Thu 15; New York Fri 9, Mon 12, Tue 13
    assert due_date(date(2024, 2, 8), 3, "0700.HK") == date(2024, 2, 15)
    assert due_date(date(2024, 2, 8), 3, "NVDA") == date(2024, 2, 13)
    assert due_date(date(2024, 2, 8), 3) == date(2024, 2, 13)
    assert due_date(date(2024, 9, 30), 1, "600519.SS") == date(2024, 10, 8)


@pytest.mark.parametrize(("ticker", "benchmark"), [
    ("NVDA", "SPY"), ("0700.HK", "^HSI"), ("600519.SS", "000300.SS"), ("000001.SZ", "000300.SS"),
    ("7203.T", "^N225"), ("2330.TW", "^TWII"),
])
def test_each_market_has_its_own_benchmark_on_its_own_days(ticker: str, benchmark: str) -> None:
    assert benchmark_for(ticker) == benchmark
    vendor = SyntheticVendor()
    stock = vendor.ohlcv(ticker, date(2024, 1, 1), date(2024, 12, 31)).index
    index = vendor.ohlcv(benchmark, date(2024, 1, 1), date(2024, 12, 31)).index
    assert list(stock) == list(index)                    # every close of the call has its benchmark's close
    assert market(benchmark) == market(ticker)


def test_every_benchmark_abroad_with_a_calendar_is_served_on_that_calendar() -> None:
    for suffix, index in BENCHMARKS.items():
        if market_of(f"X{suffix}") in ("HK", "CN", "JP", "TW"):
            assert market(index) == market_of(f"X{suffix}"), (suffix, index)


def test_a_hong_kong_call_settles_on_hong_kong_days_against_the_hang_seng() -> None:
    call = Call(id="t1:1", user="ann@example.com", thread_id="t1", ticker="0700.HK", trade_date="2024-02-08",
                signal="BUY", horizon="3 days", data=SyntheticVendor.label)
    out = settle(call, SyntheticVendor(), date(2024, 3, 1), now=datetime(2024, 3, 1, tzinfo=UTC))
    assert out.outcome is not None, out.pending
    assert (out.outcome.settle_date, out.outcome.benchmark) == ("2024-02-15", "^HSI")
    closes = SyntheticVendor().ohlcv("^HSI", date(2024, 2, 8), date(2024, 2, 15))["close"]
    assert out.outcome.benchmark_return == pytest.approx(closes.iloc[-1] / closes.iloc[0] - 1)


# --- a watch ----------------------------------------------------------------------------------------------------

def test_a_hong_kong_watch_runs_on_hong_kong_days_in_hong_kong_time() -> None:
    rule = Rule(EVERY_TRADING_DAY, time(16, 30), "HK")
    after = datetime(2024, 2, 7, 17, 0, tzinfo=HONG_KONG)
    slots = rule.slots(after, datetime(2024, 2, 16, 23, 0, tzinfo=HONG_KONG))
    assert [s.date().isoformat() for s in slots] == ["2024-02-08", "2024-02-09", "2024-02-14", "2024-02-15",
                                                     "2024-02-16"]
    assert all(s.tzinfo == HONG_KONG and s.time() == time(16, 30) for s in slots)
    # 08:31 UTC on Friday 2024-02-09 is 16:31 in Hong Kong: Friday's slot is due (New York is still asleep)
    now = datetime(2024, 2, 9, 8, 31, tzinfo=UTC)
    assert rule.due(now, last_run=None, since=after) == datetime(2024, 2, 9, 16, 30, tzinfo=HONG_KONG)
    assert rule.next_slot(now) == datetime(2024, 2, 14, 16, 30, tzinfo=HONG_KONG)   # over the Lunar New Year
    assert rule.cron()["timezone"] == "Asia/Hong_Kong"
    assert Rule.from_dict(rule.as_dict()) == rule
    # a watch saved before watches went abroad is a New York one
    assert Rule.from_dict({"weekday": -1, "at": "16:30", "zone": "America/New_York"}) == Rule()



def test_the_chat_says_whose_clock_a_watch_keeps() -> None:
    from chat.features.watches import rule_words, when_words  # the chat's words for the rule (prompts/words_*.md)

    hong_kong = Rule(EVERY_TRADING_DAY, time(16, 30), "HK")
    assert rule_words(hong_kong, "en") == "every trading day at 16:30 Hong Kong time"
    assert rule_words(hong_kong, "zh") == "每个交易日香港时间 16:30"
    assert rule_words(Rule(0, time(9, 0), "CN"), "zh") == "每星期一北京时间 09:00"
    slot = datetime(2024, 2, 14, 16, 30, tzinfo=HONG_KONG)
    assert when_words(slot, hong_kong, "en") == "Wednesday 2024-02-14, 16:30 Hong Kong time"
