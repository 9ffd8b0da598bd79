"""The desks of a comparison share one trade date: the last day every ticker's exchange traded, so no
desk moves to its own previous session (issue 24, points 1 and 3). Dates from the exchanges' holidays."""
from __future__ import annotations

from datetime import date

import pytest

from graph.compare.ask import read_comparison, shared_session

TODAY = date(2026, 11, 22)


@pytest.mark.parametrize("tickers, asked, expected", [
    (("NVDA", "0700.HK"), date(2024, 2, 13), date(2024, 2, 9)),    # Lunar New Year in Hong Kong, 12th-13th
    (("NVDA", "AMD"), date(2024, 2, 13), date(2024, 2, 13)),       # the NYSE traded
    (("0700.HK", "9988.HK"), date(2024, 7, 4), date(2024, 7, 4)),  # Hong Kong trades on the 4th of July
    (("NVDA", "0700.HK"), date(2024, 7, 4), date(2024, 7, 3)),
    (("0700.HK", "7203.T"), date(2024, 5, 3), date(2024, 5, 2)),   # Tokyo's Constitution Day
    (("600519.SS", "NVDA"), date(2024, 10, 7), date(2024, 9, 30)),  # the mainland's National Day week
    (("NVDA", "AMD"), date(2024, 5, 5), date(2024, 5, 3)),         # a Sunday
])
def test_the_last_day_every_exchange_traded(tickers, asked, expected):
    assert shared_session(asked, tickers) == expected


def test_a_comparison_asked_on_a_holiday_abroad_shares_the_last_common_session():
    ask = read_comparison("NVDA or 0700.HK on 2024-02-13?", TODAY)
    assert ask is not None and not ask.problem
    assert ask.trade_date == date(2024, 2, 9) and ask.asked_date == date(2024, 2, 13)
