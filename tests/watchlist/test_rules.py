"""When a watch runs (graph/watchlist/rules.py): on the exchange's trading days only, at most one slot a day,
and after downtime the latest missed slot once. Every moment is given, so nothing sleeps."""
from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from graph.watchlist.rules import AFTER_CLOSE, EVERY_TRADING_DAY, MORNING, NEW_YORK, Rule, RuleRefused


def ny(day: str, at: str = "17:00") -> datetime:
    return datetime.combine(date.fromisoformat(day), time.fromisoformat(at), tzinfo=NEW_YORK)


def test_slots_fall_on_trading_days_only() -> None:
    daily = Rule()
    # Thanksgiving week 2026: Thursday 26 is a holiday; Saturday and Sunday are no sessions.
    slots = daily.slots(ny("2026-11-22"), ny("2026-11-30"))
    assert [s.date().isoformat() for s in slots] == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-27",
                                                     "2026-11-30"]
    assert all(s.time() == AFTER_CLOSE and s.tzinfo == NEW_YORK for s in slots)


def test_a_weekly_watch_skips_a_holiday_on_its_weekday() -> None:
    monday = Rule(weekday=0, at=MORNING)
    # 2026-01-19 is Martin Luther King Jr. Day: the market is closed, and so is that week's slot.
    slots = monday.slots(ny("2026-01-01"), ny("2026-01-31"))
    assert [s.date().isoformat() for s in slots] == ["2026-01-05", "2026-01-12", "2026-01-26"]


def test_a_missed_run_happens_once_for_the_latest_slot() -> None:
    rule = Rule()
    made = ny("2026-11-01", "12:00")
    last = ny("2026-11-13", "16:30")  # Friday's slot ran; the server was down until Wednesday evening
    assert rule.due(ny("2026-11-18", "18:00"), last_run=last, since=made) == ny("2026-11-18", "16:30")
    # before Wednesday's slot: Tuesday's, once
    assert rule.due(ny("2026-11-18", "10:00"), last_run=last, since=made) == ny("2026-11-17", "16:30")
    # run, then asked again at once: nothing is due
    ran = ny("2026-11-18", "16:30")
    assert rule.due(ny("2026-11-18", "18:00"), last_run=ran, since=made) is None


def test_no_slot_is_due_before_the_watch_was_made_nor_on_a_holiday() -> None:
    rule = Rule()
    made = ny("2026-11-25", "17:00")  # after Wednesday's slot
    assert rule.due(ny("2026-11-26", "18:00"), last_run=None, since=made) is None  # Thanksgiving
    assert rule.due(ny("2026-11-27", "16:29"), last_run=None, since=made) is None
    assert rule.due(ny("2026-11-27", "16:31"), last_run=None, since=made) == ny("2026-11-27", "16:30")


def test_a_slot_is_a_moment_in_new_york_whatever_the_clock_zone() -> None:
    rule = Rule()
    # 21:31 UTC on 2026-11-27 is 16:31 in New York (EST, UTC-5)
    now = datetime(2026, 11, 27, 21, 31, tzinfo=UTC)
    assert rule.due(now, last_run=None, since=ny("2026-11-27", "09:00")) == ny("2026-11-27", "16:30")
    assert rule.next_slot(ny("2026-11-25", "17:00")) == ny("2026-11-27", "16:30")


def test_the_rule_as_a_cron_and_back() -> None:
    assert Rule().cron() == {"day_of_week": "mon-fri", "hour": 16, "minute": 30, "timezone": "America/New_York"}
    assert Rule(weekday=0, at=MORNING).cron()["day_of_week"] == "mon"
    rule = Rule(weekday=4, at=time(17, 5))
    assert Rule.from_dict(rule.as_dict()) == rule
    assert Rule.from_dict({}) == Rule(EVERY_TRADING_DAY, AFTER_CLOSE)
    with pytest.raises(RuleRefused, match="weekends"):
        Rule(weekday=5)


# -- the class calendars (issue 37): worked out by hand from the calendar of November 2026 --------------------
# Thursday 26 is Thanksgiving (NYSE closed); Saturday 28 and Sunday 29 are a weekend; Christmas is Friday 2026-12-25.

def utc(day: str, at: str) -> datetime:
    return datetime.combine(date.fromisoformat(day), time.fromisoformat(at), tzinfo=UTC)


def days(slots: list[datetime]) -> list[str]:
    return [s.date().isoformat() for s in slots]


def test_a_crypto_watch_has_a_slot_every_utc_day_and_a_stock_watch_none_on_the_weekend() -> None:
    btc, nvda = Rule.closing("CRYPTO"), Rule.closing("US")
    window = (utc("2026-11-26", "00:00"), utc("2026-12-01", "00:00"))
    # crypto: Thanksgiving, Saturday and Sunday too, each at 23:30 UTC (the UTC day's last half hour)
    assert days(btc.slots(*window)) == ["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert all(s.time() == time(23, 30) and s.utcoffset() == timedelta(0) for s in btc.slots(*window))
    # NVDA: Friday and Monday only (Thanksgiving closed, no weekend)
    assert days(nvda.slots(*window)) == ["2026-11-27", "2026-11-30"]
    saturday = utc("2026-11-28", "23:30")
    assert btc.runs_on(saturday.date()) and not nvda.runs_on(saturday.date())
    # on Friday night after its slot, the next crypto slot is Saturday's, NVDA's Monday's
    assert btc.next_slot(utc("2026-11-27", "23:45")) == saturday
    assert nvda.next_slot(utc("2026-11-27", "23:45")) == ny("2026-11-30", "16:30")
    # the server down from Friday night to Sunday 01:00 UTC: Saturday's slot, once
    assert btc.due(utc("2026-11-29", "01:00"), last_run=utc("2026-11-27", "23:30"),
                   since=utc("2026-11-01", "00:00")) == saturday


def test_a_crypto_watch_wakes_every_day_and_may_be_weekly_on_a_weekend_day() -> None:
    assert Rule.closing("CRYPTO").cron() == {"day_of_week": "mon-sun", "hour": 23, "minute": 30, "timezone": "UTC"}
    assert Rule.closing("CRYPTO").words() == "every day at 23:30 UTC time"
    sunday = Rule(weekday=6, at=time(23, 30), market="CRYPTO")
    assert sunday.cron()["day_of_week"] == "sun" and sunday.words() == "every Sunday at 23:30 UTC time"
    assert days(sunday.slots(utc("2026-11-01", "00:00"), utc("2026-11-30", "00:00"))) == [
        "2026-11-01", "2026-11-08", "2026-11-15", "2026-11-22", "2026-11-29"]
    assert Rule.from_dict(sunday.as_dict()) == sunday
    for market in ("US", "FX", "CME"):  # closed on Saturday: refused with the reason
        with pytest.raises(RuleRefused, match="weekends"):
            Rule(weekday=5, market=market)


def test_a_currency_watch_runs_monday_to_friday_in_new_york_holidays_included() -> None:
    eur = Rule.closing("FX")
    assert eur.at == time(17, 30) and eur.zone == "America/New_York"  # the FX day ends 17:00 New York
    slots = eur.slots(ny("2026-11-25", "00:00"), ny("2026-12-01", "00:00"))
    # Thanksgiving is a session (the interbank market keeps no exchange holiday); Saturday and Sunday are not
    # (the session opened Sunday 17:00 is Monday's, dated by the day it ends)
    assert days(slots) == ["2026-11-25", "2026-11-26", "2026-11-27", "2026-11-30"]
    assert eur.runs_on(date(2026, 12, 25)) and eur.cron()["day_of_week"] == "mon-fri"


def test_a_futures_watch_keeps_cme_globex_days_in_chicago_time() -> None:
    gold = Rule.closing("CME")
    assert gold.zone == "America/Chicago" and gold.at == time(16, 30)
    slots = gold.slots(datetime(2026, 11, 25, tzinfo=gold.tz), datetime(2026, 12, 1, tzinfo=gold.tz))
    # Globex trades a short session on Thanksgiving (counted), none at the weekend; none on Christmas
    assert days(slots) == ["2026-11-25", "2026-11-26", "2026-11-27", "2026-11-30"]
    assert not gold.runs_on(date(2026, 12, 25))
