from datetime import date

import pytest

from graph.core.trading_days import (
    is_trading_day,
    last_trading_day,
    next_trading_day,
    nyse_holidays,
    previous_trading_day,
)


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2024, 5, 1), True),  # ordinary Wednesday
        (date(2024, 5, 4), False),  # Saturday
        (date(2024, 5, 5), False),  # Sunday
        (date(2024, 1, 1), False),  # New Year's Day
        (date(2024, 1, 15), False),  # MLK Day
        (date(2024, 2, 19), False),  # Presidents' Day
        (date(2024, 3, 29), False),  # Good Friday
        (date(2024, 5, 27), False),  # Memorial Day
        (date(2024, 6, 19), False),  # Juneteenth
        (date(2024, 7, 4), False),  # Independence Day
        (date(2024, 7, 3), True),  # early close is still a session
        (date(2024, 9, 2), False),  # Labor Day
        (date(2024, 11, 28), False),  # Thanksgiving
        (date(2024, 11, 29), True),  # day after Thanksgiving (early close)
        (date(2024, 12, 25), False),  # Christmas
        (date(2025, 1, 9), False),  # national day of mourning for President Carter
        (date(2025, 4, 18), False),  # Good Friday 2025
        (date(2026, 7, 3), False),  # Independence Day observed (July 4th is a Saturday)
        (date(2026, 11, 20), True),  # Friday
        (date(2026, 11, 22), False),  # Sunday
        (date(2012, 10, 29), False),  # Hurricane Sandy closure
        (date(2018, 12, 5), False),  # President Bush's day of mourning
    ],
)
def test_is_trading_day(day, expected):
    assert is_trading_day(day) is expected


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2024, 5, 1), date(2024, 5, 1)),  # a trading day maps to itself
        (date(2024, 5, 4), date(2024, 5, 3)),  # Saturday -> Friday
        (date(2024, 5, 5), date(2024, 5, 3)),  # Sunday -> Friday
        (date(2024, 7, 4), date(2024, 7, 3)),
        (date(2024, 3, 29), date(2024, 3, 28)),  # Good Friday -> Thursday
        (date(2024, 3, 31), date(2024, 3, 28)),  # Easter Sunday -> Thursday
        (date(2024, 12, 25), date(2024, 12, 24)),
        (date(2025, 1, 9), date(2025, 1, 8)),  # Carter closure
        (date(2024, 1, 1), date(2023, 12, 29)),  # across the year boundary
        (date(2024, 1, 15), date(2024, 1, 12)),  # MLK Monday -> previous Friday
        (date(2024, 5, 27), date(2024, 5, 24)),  # Memorial Day Monday
        (date(2024, 11, 28), date(2024, 11, 27)),  # Thanksgiving
        (date(2026, 11, 22), date(2026, 11, 20)),
        (date(2026, 7, 4), date(2026, 7, 2)),  # Saturday after an observed Friday holiday
        (date(2023, 12, 31), date(2023, 12, 29)),
    ],
)
def test_last_trading_day(day, expected):
    assert last_trading_day(day) == expected
    assert is_trading_day(last_trading_day(day))


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2024, 5, 2), date(2024, 5, 1)),
        (date(2024, 5, 6), date(2024, 5, 3)),  # Monday -> Friday
        (date(2024, 7, 5), date(2024, 7, 3)),  # skips July 4th
        (date(2024, 4, 1), date(2024, 3, 28)),  # skips Good Friday and the weekend
        (date(2025, 1, 10), date(2025, 1, 8)),  # skips the Carter closure
        (date(2024, 12, 26), date(2024, 12, 24)),
    ],
)
def test_previous_trading_day(day, expected):
    assert previous_trading_day(day) == expected


def test_previous_is_strictly_before():
    day = date(2024, 5, 1)
    assert previous_trading_day(day) < day
    assert previous_trading_day(last_trading_day(day)) < last_trading_day(day)


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2024, 7, 3), date(2024, 7, 5)),
        (date(2024, 5, 3), date(2024, 5, 6)),
        (date(2024, 3, 28), date(2024, 4, 1)),
    ],
)
def test_next_trading_day(day, expected):
    assert next_trading_day(day) == expected


def test_holidays_are_cached_per_year():
    assert nyse_holidays(2024) is nyse_holidays(2024)
    assert date(2024, 7, 4) in nyse_holidays(2024)
    assert date(2024, 7, 4) not in nyse_holidays(2025)


def test_weekend_run_of_a_whole_year_is_consistent():
    # Every day of 2024 resolves to a trading day no later than itself, and
    # there are the usual ~252 sessions.
    day = date(2024, 1, 1)
    sessions = 0
    while day.year == 2024:
        resolved = last_trading_day(day)
        assert resolved <= day and is_trading_day(resolved)
        sessions += is_trading_day(day)
        day = date.fromordinal(day.toordinal() + 1)
    assert sessions == 252


def test_extreme_dates_do_not_raise():
    assert last_trading_day(date.min) <= date(1, 1, 7)
    assert previous_trading_day(date.min) == date.min
