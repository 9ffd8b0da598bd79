""""N trading days ago" counts the sessions of the listing's own exchange (graph/request/dates.py, intent.py):
Hong Kong's for 0700.HK, Tokyo's for 7203.T, Shanghai's for 600519.SS, Taiwan's for 2330.TW; the NYSE's for
a US listing, exactly as before, and while no ticker is known. A plain-calendar phrase ("yesterday", "3 days
ago") counts no sessions and reads the same for every listing.

Every expected day below was worked out by hand from the exchanges' published holidays:

* Hong Kong, Lunar New Year 2024: closed Mon 12 and Tue 13 February (the NYSE traded both);
* New York, Independence Day: closed Thu 4 July 2024 (Hong Kong traded; it closed Mon 1 July);
* Tokyo, Golden Week 2024: closed Mon 29 April, Fri 3 May and Mon 6 May (the NYSE traded all three);
* Shanghai, National Day 2024: closed Tue 1 to Mon 7 October (the NYSE traded the weekdays);
* Taiwan, Lunar New Year 2024: no trading Tue 6 to Wed 14 February.
"""
from __future__ import annotations

import subprocess
import sys
from datetime import date

import pytest

from graph.request import parse_request
from graph.request.dates import scan_dates

AFTER_LUNAR_NEW_YEAR = date(2024, 2, 15)  # a Thursday


@pytest.mark.parametrize(("text", "today", "asked"), [
    # Hong Kong: 14, 9, 8 February (12 and 13 closed); the NYSE: 14, 13, 12
    ("0700.HK 3 trading days ago", AFTER_LUNAR_NEW_YEAR, date(2024, 2, 8)),
    ("NVDA 3 trading days ago", AFTER_LUNAR_NEW_YEAR, date(2024, 2, 12)),
    ("0700.HK three business days back", AFTER_LUNAR_NEW_YEAR, date(2024, 2, 8)),
    ("腾讯3个交易日前", AFTER_LUNAR_NEW_YEAR, date(2024, 2, 8)),
    ("英伟达3个交易日前", AFTER_LUNAR_NEW_YEAR, date(2024, 2, 12)),
    # the day after the 4th of July: Hong Kong traded on the 4th, the NYSE did not
    ("0700.HK 1 trading day ago", date(2024, 7, 5), date(2024, 7, 4)),
    ("AAPL 1 trading day ago", date(2024, 7, 5), date(2024, 7, 3)),
    ("0700.HK 2 trading days ago", date(2024, 7, 5), date(2024, 7, 3)),
    ("AAPL 2 trading days ago", date(2024, 7, 5), date(2024, 7, 2)),
    # Tokyo, Tuesday 7 May 2024: 2 May, 1 May, 30 April; the NYSE: 6, 3, 2 May
    ("7203.T 3 trading days ago", date(2024, 5, 7), date(2024, 4, 30)),
    ("AAPL 3 trading days ago", date(2024, 5, 7), date(2024, 5, 2)),
    # Shanghai, Wednesday 9 October 2024: 8 October, 30 September; the NYSE: 8, 7 October
    ("600519.SS 2 trading days ago", date(2024, 10, 9), date(2024, 9, 30)),
    ("贵州茅台 2个交易日前", date(2024, 10, 9), date(2024, 9, 30)),
    ("MSFT 2 trading days ago", date(2024, 10, 9), date(2024, 10, 7)),
    # Taiwan, Friday 16 February 2024: 15, 5 February; the NYSE: 15, 14 February
    ("2330.TW 2 trading days ago", date(2024, 2, 16), date(2024, 2, 5)),
    ("TSM 2 trading days ago", date(2024, 2, 16), date(2024, 2, 14)),
])
def test_n_trading_days_ago_counts_the_listings_own_sessions(text: str, today: date, asked: date) -> None:
    parsed = parse_request(text, today)
    assert parsed.intent == "analyze", parsed
    assert (parsed.asked_date, parsed.trade_date) == (asked, asked), parsed.reason  # a session: its own trade date


def test_the_reason_says_whose_sessions_were_counted() -> None:
    abroad = parse_request("0700.HK 3 trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert "relative date (HK sessions) '3 trading days ago'" in abroad.reason
    home = parse_request("NVDA 3 trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert home.reason.endswith("date 2024-02-12 from relative date '3 trading days ago'")  # as before


@pytest.mark.parametrize(("text", "asked", "trade"), [
    ("0700.HK yesterday", date(2024, 2, 14), date(2024, 2, 14)),
    ("0700.HK 3 days ago", date(2024, 2, 12), date(2024, 2, 9)),      # a calendar day, then Hong Kong's session
    ("NVDA 3 days ago", date(2024, 2, 12), date(2024, 2, 12)),
    ("腾讯三天前", date(2024, 2, 12), date(2024, 2, 9)),
    ("0700.HK last friday", date(2024, 2, 9), date(2024, 2, 9)),
])
def test_a_plain_calendar_phrase_counts_no_sessions(text: str, asked: date, trade: date) -> None:
    parsed = parse_request(text, AFTER_LUNAR_NEW_YEAR)
    assert (parsed.ticker is not None, parsed.asked_date, parsed.trade_date) == (True, asked, trade), parsed.reason
    assert "sessions)" not in parsed.reason


def test_the_listing_on_screen_sets_the_count_when_the_message_names_none() -> None:
    carried = parse_request("what about 3 trading days ago?", AFTER_LUNAR_NEW_YEAR, has_decision=True,
                            current_ticker="0700.HK", current_date=AFTER_LUNAR_NEW_YEAR)
    assert (carried.intent, carried.ticker, carried.asked_date) == ("analyze", "0700.HK", date(2024, 2, 8))
    # nothing on screen yet, but a ticker in play
    started = parse_request("3 trading days ago", AFTER_LUNAR_NEW_YEAR, current_ticker="0700.HK")
    assert (started.intent, started.ticker, started.asked_date) == ("analyze", "0700.HK", date(2024, 2, 8))
    # a ticker named in the message wins over the one on screen, both ways
    named = parse_request("NVDA 3 trading days ago", AFTER_LUNAR_NEW_YEAR, has_decision=True,
                          current_ticker="0700.HK", current_date=AFTER_LUNAR_NEW_YEAR)
    assert (named.ticker, named.asked_date) == ("NVDA", date(2024, 2, 12))
    abroad = parse_request("0700.HK 3 trading days ago", AFTER_LUNAR_NEW_YEAR, has_decision=True,
                           current_ticker="NVDA", current_date=AFTER_LUNAR_NEW_YEAR)
    assert (abroad.ticker, abroad.asked_date) == ("0700.HK", date(2024, 2, 8))


def test_a_session_count_on_screen_is_a_new_date_only_if_its_own_exchange_says_so() -> None:
    """0700.HK on 8 February on screen: "3 trading days ago" is that same Hong Kong session (a follow-up),
    though the NYSE's count would have been 12 February (a new date)."""
    parsed = parse_request("and 3 trading days ago?", AFTER_LUNAR_NEW_YEAR, has_decision=True,
                           current_ticker="0700.HK", current_date=date(2024, 2, 8))
    assert (parsed.intent, parsed.trade_date) == ("followup", date(2024, 2, 8)), parsed.reason


def test_without_a_ticker_the_count_is_the_nyses_until_one_is_known() -> None:
    """No ticker: the question back keeps the NYSE's count (graph/request/resolve.py parses again with the
    model's ticker spelled out, which counts that listing's sessions)."""
    parsed = parse_request("3 trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert (parsed.intent, parsed.asked_date) == ("clarify", date(2024, 2, 12))
    again = parse_request("$0700.HK 3 trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert (again.ticker, again.asked_date) == ("0700.HK", date(2024, 2, 8))


def test_scan_dates_counts_the_market_it_is_given() -> None:
    us = scan_dates("3 trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert (us.value, us.counts_sessions, us.explicit) == (date(2024, 2, 12), True, True)
    hk = scan_dates("3 trading days ago", AFTER_LUNAR_NEW_YEAR, market="HK")
    assert (hk.value, hk.counts_sessions, hk.remaining) == (date(2024, 2, 8), True, us.remaining)
    assert scan_dates("3 trading days ago", AFTER_LUNAR_NEW_YEAR, market="US") == us  # the default
    for plain in ("3 days ago", "yesterday", "2024-02-12", "in 3 trading days"):
        assert not scan_dates(plain, AFTER_LUNAR_NEW_YEAR, market="HK").counts_sessions, plain
    # "0 trading days ago" is today wherever the listing is
    assert scan_dates("0 trading days ago", AFTER_LUNAR_NEW_YEAR, market="HK").value == AFTER_LUNAR_NEW_YEAR


def test_a_count_is_refused_or_asked_back_abroad_as_at_home() -> None:
    for text in ("0700.HK 9000 trading days ago", "NVDA 9000 trading days ago"):  # before 1990 on either calendar
        assert parse_request(text, AFTER_LUNAR_NEW_YEAR).intent == "clarify", text
    for text in ("0700.HK in 3 trading days", "0700.HK 1.5 trading days ago"):
        parsed = parse_request(text, AFTER_LUNAR_NEW_YEAR)
        assert (parsed.intent, parsed.trade_date) == ("clarify", None), text


def test_a_count_that_reaches_before_1990_only_on_the_listings_exchange_is_refused() -> None:
    """The NYSE's sessions from its first of 1990 (2 January) to the day before today: counted back on the
    NYSE they land on 2 January 1990; Hong Kong had fewer sessions since, so there they reach into 1989."""
    from graph.core.trading_days import sessions_between

    n = len(sessions_between(date(1990, 1, 2), date(2024, 2, 14)))
    home = parse_request(f"NVDA {n} trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert (home.intent, home.asked_date) == ("analyze", date(1990, 1, 2))
    abroad = parse_request(f"0700.HK {n} trading days ago", AFTER_LUNAR_NEW_YEAR)
    assert (abroad.intent, abroad.trade_date) == ("clarify", None), abroad.reason
    assert "before 1990" in abroad.reason


def test_a_us_session_count_still_never_imports_exchange_calendars() -> None:
    code = ("import sys; from datetime import date; from graph.request import parse_request; "
            "p = parse_request('NVDA 3 trading days ago', date(2024, 2, 15)); "
            "q = parse_request('3 trading days ago', date(2024, 2, 15)); "
            "print(p.asked_date, q.asked_date, 'exchange_calendars' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2024-02-12 2024-02-12 False", out.stderr
