"""When a watch runs (graph/watchlist/rules.py): on the exchange's trading days only, at most one slot a day,
and after downtime the latest missed slot once. Every moment is given, so nothing sleeps."""
from __future__ import annotations

from datetime import UTC, date, datetime, time

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
