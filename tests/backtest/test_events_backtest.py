"""A backtest day sees only what was on the calendar by that day (issue 38, point 1): NVDA's synthetic
earnings of 2024-05-09 were announced on 2024-04-13, so the day of 2024-04-12 does not see them and the day
of 2024-04-15 does."""
from __future__ import annotations

import threading
from datetime import date

from graph.backtest.watch import current_day
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import Event
from tests.backtest.conftest import Make, backtest_desk, run_all

EARNINGS = date(2024, 5, 9)


class CalendarSeen(SyntheticVendor):
    """Notes, per backtest day, the trade date each calendar question was asked for and what it answered."""

    def __init__(self) -> None:
        self.seen: dict[date, list[tuple[date, list[Event]]]] = {}
        self.lock = threading.Lock()

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        answer = super().events(ticker, as_of, until)
        if (day := current_day()) is not None:
            with self.lock:
                self.seen.setdefault(day.day, []).append((as_of, answer))
        return answer


async def test_a_backtest_day_does_not_see_a_later_announcement(settings: Settings, new_backtest: Make) -> None:
    earnings = next(e for e in SyntheticVendor().events("NVDA", date(2024, 4, 15), date(2024, 6, 1))
                    if e.kind == "earnings")
    assert (earnings.day, earnings.announced) == (EARNINGS, date(2024, 4, 13))
    vendor = CalendarSeen()
    desk = backtest_desk(settings, vendor)
    backtest = await new_backtest(desk, ["NVDA"], date(2024, 4, 12), date(2024, 4, 15), every=1)
    await run_all(desk, backtest, concurrency=1)
    before, after = vendor.seen[date(2024, 4, 12)], vendor.seen[date(2024, 4, 15)]
    assert {as_of for as_of, _ in before} == {date(2024, 4, 12)}  # asked as of its own day only
    assert all(e.day != EARNINGS for _, answer in before for e in answer)
    assert any(e.kind == "earnings" and e.day == EARNINGS for _, answer in after for e in answer)
