"""A backtest of a listing abroad keeps its own exchange's sessions: the runner's estimate of when a day's call
settles (graph/backtest/runner.py, `Day.unseen`) and the window the result is scored on (graph/backtest/result.py).

Worked out by hand from Hong Kong's calendar: from Tuesday 2 January 2024, the 29th Hong Kong session after it
is Wednesday 14 February and the 30th Thursday 15 February (Hong Kong closed 1 January and, for the Lunar New
Year, Monday 12 and Tuesday 13 February); the NYSE's 30th is 14 February (it closed 15 January and traded
through the Lunar New Year).
"""
from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from graph.backtest.plan import make_plan
from graph.backtest.record import Records
from graph.backtest.result import closes
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.track.horizon import due_date
from tests.backtest.conftest import TODAY, MissingDay, backtest_desk, run_all


def test_the_due_dates_behind_the_runner_are_the_listings() -> None:
    start = date(2024, 1, 2)
    assert due_date(start, 30, "0700.HK") == date(2024, 2, 15)
    assert due_date(start, 30, "AAPL") == due_date(start, 30) == date(2024, 2, 14)


async def test_a_hong_kong_day_is_not_said_to_miss_a_call_that_settles_after_it_in_hong_kong(
        settings: Settings) -> None:
    """Every 29 Hong Kong sessions, two at a time: the second day (14 February) starts while the first runs. The
    first's call (the demo's 2-6 weeks: 30 sessions) settles on 15 February in Hong Kong, after the second day,
    so it could not have been recalled and nothing was missed; counted in NYSE sessions it would have settled on
    the 14th and been listed as missed."""
    desk = backtest_desk(settings)
    plan = await make_plan(desk.vendor, desk.settings, ["0700.HK"], date(2024, 1, 2), date(2024, 2, 20),
                           today=TODAY, every=29)
    backtest = await Records(desk.store).create("tester", plan)
    runner = await run_all(desk, backtest, concurrency=2)
    days = list(runner.ordered().values())
    assert [d.day for d in days] == ["2024-01-02", "2024-02-14"]
    assert {d.horizon for d in days} == {"2-6 weeks"}
    assert [d.unseen for d in days] == [[], []]


async def test_a_hong_kong_day_on_the_settle_date_does_list_the_call_it_could_not_see(settings: Settings) -> None:
    """Every 30 Hong Kong sessions: the second day is 15 February, the first call's Hong Kong settle date."""
    desk = backtest_desk(settings)
    plan = await make_plan(desk.vendor, desk.settings, ["0700.HK"], date(2024, 1, 2), date(2024, 2, 20),
                           today=TODAY, every=30)
    backtest = await Records(desk.store).create("tester", plan)
    runner = await run_all(desk, backtest, concurrency=2)
    days = list(runner.ordered().values())
    assert [d.day for d in days] == ["2024-01-02", "2024-02-15"]
    assert days[1].unseen == ["0700.HK:2024-01-02"]


@pytest.mark.parametrize(("ticker", "missing", "sessions", "closed"), [
    # Hong Kong: its session of 14 February has no close (a gap); 12 and 13 February are no sessions there
    ("0700.HK", "2024-02-14", ["2024-02-08", "2024-02-09", "2024-02-14", "2024-02-15", "2024-02-16"],
     ["2024-02-12", "2024-02-13"]),
    # New York, as before: its session of 13 February has no close; the Lunar New Year is traded
    ("AAPL", "2024-02-13", ["2024-02-08", "2024-02-09", "2024-02-12", "2024-02-13", "2024-02-14", "2024-02-15",
                            "2024-02-16"], []),
])
def test_the_scored_window_is_the_listings_sessions_with_its_gaps(
        ticker: str, missing: str, sessions: list[str], closed: list[str]) -> None:
    _, window = closes(MissingDay(missing), ticker, date(2024, 2, 8), date(2024, 2, 16))
    assert list(window.index) == sessions
    assert [day for day in window.index if pd.isna(window[day])] == [missing]
    assert not set(closed) & set(window.index)


def test_a_us_holiday_is_no_gap_for_hong_kong_and_a_hong_kong_one_none_for_new_york() -> None:
    _, hong_kong = closes(SyntheticVendor(), "0700.HK", date(2024, 7, 1), date(2024, 7, 5))
    assert list(hong_kong.index) == ["2024-07-02", "2024-07-03", "2024-07-04", "2024-07-05"]  # 1 July closed
    assert not hong_kong.isna().any()
    _, new_york = closes(SyntheticVendor(), "AAPL", date(2024, 7, 1), date(2024, 7, 5))
    assert list(new_york.index) == ["2024-07-01", "2024-07-02", "2024-07-03", "2024-07-05"]
    assert not new_york.isna().any()


def test_a_listing_without_a_calendar_keeps_the_vendors_rows() -> None:
    """London has no calendar here: a missing row is no gap the result can state (as before)."""
    _, window = closes(MissingDay("2024-02-14"), "VOD.L", date(2024, 2, 12), date(2024, 2, 16))
    assert "2024-02-14" not in window.index and not window.isna().any()
