"""English months alone, holidays, vague parts of a month or year, and a second date inheriting the
first's year (as the Chinese pass does, graph/request/intl_dates.py). Conventions in
graph/request/absolute_dates.py (_find_months, _find_holidays, _find_month_parts)."""

from __future__ import annotations

from datetime import date

import pytest

from graph.request import parse_request

SUNDAY = date(2026, 11, 22)


@pytest.mark.parametrize("text, asked, trade", [
    # a month alone: the most recent such month's last day; a later month is last year's
    ("NVDA in March", date(2026, 3, 31), date(2026, 3, 31)),
    ("how did NVDA do in March?", date(2026, 3, 31), date(2026, 3, 31)),
    ("NVDA December", date(2025, 12, 31), date(2025, 12, 31)),
    ("NVDA in Dec", date(2025, 12, 31), date(2025, 12, 31)),
    ("NVDA in May", date(2026, 5, 31), date(2026, 5, 29)),
    ("NVDA in Jan", date(2026, 1, 31), date(2026, 1, 30)),
    ("NVDA during August", date(2026, 8, 31), date(2026, 8, 31)),
    # the current month is today, as "this month"
    ("NVDA in November", SUNDAY, date(2026, 11, 20)),
    ("NVDA last December", date(2025, 12, 31), date(2025, 12, 31)),
    # with a year: unchanged
    ("NVDA March 2024", date(2024, 3, 31), date(2024, 3, 28)),
    ("NVDA Dec 2023", date(2023, 12, 31), date(2023, 12, 29)),
    ("NVDA end of March", date(2026, 3, 31), date(2026, 3, 31)),
    # holidays: the most recent one, its last session on or before it
    ("NVDA New Year's Day", date(2026, 1, 1), date(2025, 12, 31)),
    ("NVDA new year's", date(2026, 1, 1), date(2025, 12, 31)),
    ("NVDA Christmas", date(2025, 12, 25), date(2025, 12, 24)),
    ("how was NVDA on christmas eve", date(2025, 12, 24), date(2025, 12, 24)),
    ("NVDA Christmas 2024", date(2024, 12, 25), date(2024, 12, 24)),
])
def test_read(text: str, asked: date, trade: date) -> None:
    p = parse_request(text, SUNDAY)
    assert (p.intent, p.asked_date, p.trade_date, p.question) == ("analyze", asked, trade, None)


@pytest.mark.parametrize("text", [
    "NVDA may fall", "NVDA may drop", "I think NVDA may rise", "NVDA early may", "ask Jan about NVDA",
    "NVDA march higher", "NVDA this march higher", "NVDA 10 march calls", "NVDA since March",
    "NVDA since Christmas", "NVDA christmas rally", "NVDA may", "NVDA dec calls", "NVDA in june expiry",
])
def test_not_a_date(text: str) -> None:
    p = parse_request(text, SUNDAY)
    assert (p.intent, p.asked_date, p.question) == ("analyze", SUNDAY, None)


@pytest.mark.parametrize("text, quoted", [
    ("NVDA start of the year", "start of the year"),
    ("NVDA beginning of the year", "beginning of the year"),
    ("NVDA early March", "early March"),
    ("NVDA in mid-March", "mid-March"),
    ("NVDA in early 2024", "early 2024"),
    ("NVDA a while ago", "a while ago"),
    ("NVDA earlier this year", "earlier this year"),
])
def test_vague_asked(text: str, quoted: str) -> None:
    p = parse_request(text, SUNDAY)
    assert p.intent == "clarify" and p.asked_date is None
    assert p.question == f"'{quoted}' doesn't say which day. Which date did you mean? Type it like `2024-05-01`."


@pytest.mark.parametrize("text, shown", [
    ("NVDA May 1, 2024 or June 3", "2024-05-01 or 2024-06-03"),
    ("NVDA March 2024 or in May", "2024-03-31 or 2024-05-31"),
    ("NVDA in March or April", "2026-03-31 or 2026-04-30"),
])
def test_second_date_takes_first_year(text: str, shown: str) -> None:
    p = parse_request(text, SUNDAY)
    assert p.intent == "clarify" and p.question and f"({shown})" in p.question


@pytest.mark.parametrize("text", ["will NVDA rise in December?", "NVDA next Christmas", "NVDA this December"])
def test_ahead_refused(text: str) -> None:
    p = parse_request(text, SUNDAY)
    assert p.intent == "clarify" and p.question and p.question.startswith("I can't analyze the future")


def test_last_month_name_before_this_one_is_asked() -> None:
    p = parse_request("NVDA last March", SUNDAY)
    assert p.question and p.question.startswith("'last March' could be 2026-03-31 or 2025-03-31.")


def test_bare_month_on_another_day() -> None:
    # in January, "December" is last month
    assert parse_request("NVDA in December", date(2027, 1, 10)).asked_date == date(2026, 12, 31)
    assert parse_request("NVDA in January", date(2027, 1, 10)).asked_date == date(2027, 1, 10)
