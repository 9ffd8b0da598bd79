"""The desk's one reading of the wall clock.

Everything that means "the real now" — the trade date of "today", the last close that is final,
settlement, watches' slots, thread names, when a record was made — asks this module, never
`datetime.now()` or `date.today()` directly (ruff's banned-api rule in pyproject.toml refuses
those elsewhere). So one place decides what "now" is, and a test moves it for the whole process
with `time-machine` (tests/support/clock.py), child processes included.

`now()` is an aware UTC instant. `today()` is the server's own calendar day, as `date.today()`
was (the desk has always read "today" in the server's zone; on a UTC server that is the UTC
day). `now_in(zone)` and `today_in(zone)` read them in a market's zone (New York's close, a
watch's slot time).
"""
from __future__ import annotations

import time
from datetime import UTC, date, datetime, tzinfo

__all__ = ["epoch", "now", "now_in", "today", "today_in"]


def now() -> datetime:
    """The real now, as an aware UTC datetime."""
    return datetime.now(UTC)  # noqa: TID251 (the one place that reads it)


def now_in(zone: tzinfo) -> datetime:
    """The real now in `zone` (a market's or a watch's time zone)."""
    return now().astimezone(zone)


def today() -> date:
    """The server's calendar day: the desk's "today" when nobody gave one."""
    return now().astimezone().date()


def today_in(zone: tzinfo) -> date:
    """The calendar day in `zone` (New York's, for US closes)."""
    return now_in(zone).date()


def epoch() -> float:
    """Seconds since the epoch (expiry times of tokens and logouts)."""
    return time.time()  # noqa: TID251 (the one place that reads it)
