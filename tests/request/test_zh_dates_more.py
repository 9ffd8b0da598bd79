"""Chinese dates beyond the case table (tests/request/data/requests_zh.tsv): the same words on other days, what
is not a date, and long input. The conventions are in graph/request/intl_dates.py."""

from __future__ import annotations

from datetime import date

import pytest

from graph.request import parse_request
from graph.request.dates import scan_dates
from tests.support.hang import finishes

SUNDAY = date(2026, 11, 22)


def _asked(text: str, today: date = SUNDAY) -> date | None:
    scan = scan_dates(text, today, language="zh")
    assert scan.error is None, scan.reason
    return scan.value


@pytest.mark.parametrize("text, today, asked", [
    # a two-digit year is the most recent such year: 24 -> 2024, 98 -> 1998, 26 -> 2026 (this year)
    ("24年5月1日", SUNDAY, date(2024, 5, 1)),
    ("98年5月1日", SUNDAY, date(1998, 5, 1)),
    ("26年5月1日", SUNDAY, date(2026, 5, 1)),
    ("二四年五月一日", SUNDAY, date(2024, 5, 1)),
    # a month alone: the most recent such month's last day; the current month is today
    ("12月", date(2026, 12, 5), date(2026, 12, 5)),
    ("12月", date(2027, 1, 2), date(2026, 12, 31)),
    ("一月", date(2027, 1, 20), date(2027, 1, 20)),
    ("一月份", date(2027, 2, 3), date(2027, 1, 31)),
    ("2月底", date(2028, 3, 1), date(2028, 2, 29)),
    # the same day last year; Feb 29 falls back to Feb 28
    ("去年今天", date(2028, 2, 29), date(2027, 2, 28)),
    ("前年今天", SUNDAY, date(2024, 11, 22)),
    # holidays on a fixed day: this year's New Year's Day, the most recent Christmas
    ("元旦", date(2027, 1, 1), date(2027, 1, 1)),
    ("去年元旦", SUNDAY, date(2025, 1, 1)),
    ("圣诞节", date(2026, 12, 25), date(2026, 12, 25)),
    ("圣诞节", date(2026, 12, 24), date(2025, 12, 25)),
    # a year's or a month's end is its last day
    ("2023年底", SUNDAY, date(2023, 12, 31)),
    ("去年底", SUNDAY, date(2025, 12, 31)),
    ("上月底", SUNDAY, date(2026, 10, 31)),
    ("上上个月底", SUNDAY, date(2026, 9, 30)),
])
def test_dates_on_other_days(text: str, today: date, asked: date) -> None:
    assert _asked(text, today) == asked


@pytest.mark.parametrize("text, second", [
    ("2024年5月1日还是6月3日", "2024-06-03"),
    ("去年5月1日还是6月3日", "2025-06-03"),
    ("2024年5月1日或者12月", "2024-12-31"),
    ("2024年元旦还是3月1日", "2024-03-01"),
])
def test_a_second_date_has_the_first_ones_year(text: str, second: str) -> None:
    scan = scan_dates(text, SUNDAY, language="zh")
    assert scan.value is None and scan.error and second in scan.error, scan.error


@pytest.mark.parametrize("text", ["年初", "今年年初", "2024年初", "3月初", "2024年3月上旬", "本月初"])
def test_a_beginning_is_asked_back(text: str) -> None:
    scan = scan_dates(text, SUNDAY, language="zh")
    assert scan.value is None and scan.error and "没有说明是哪一天" in scan.error, scan.reason


@pytest.mark.parametrize("text", [
    "英伟达今年中国市场", "英伟达3个月前", "英伟达年初至今涨了多少", "英伟达3月份以来",
    "トヨタ 3月期決算", "英伟达元旦行情", "英伟达每月定投", "英伟达第三月", "英伟达一二月",
])
def test_words_that_are_no_month_or_period(text: str) -> None:
    parsed = parse_request(text, SUNDAY)
    assert parsed.question is None or "没有说明" not in parsed.question, parsed.question
    if "个月前" not in text:
        assert parsed.asked_date == SUNDAY, parsed.reason


@pytest.mark.parametrize("text", ["202年5月1日", "12345年5月", "1年5月1日"])
def test_a_year_that_cannot_be_read_is_asked(text: str) -> None:
    scan = scan_dates(text, SUNDAY, language="zh")
    assert scan.value is None and scan.error and "无法把" in scan.error, scan.reason


def test_the_longer_phrase_wins() -> None:
    assert "'大后天' (2026-11-25)" in (scan_dates("大后天", SUNDAY, language="zh").error or "")
    assert _asked("大前天") == date(2026, 11, 19)


@pytest.mark.parametrize("text", [
    "年初" * 1300, "3月份" * 1300, "元旦" * 1300, "24年5月" * 800, "去年年底" * 900, "上个月底" * 900,
    "1" * 3990 + "年5月", "一" * 3990 + "年5月", "年" * 3990 + "初",
], ids=lambda t: f"{t[:6]}…{len(t)}")
def test_long_input_parses(text: str) -> None:
    finishes(parse_request, text, SUNDAY)  # once minutes of backtracking; a few milliseconds now


@pytest.mark.parametrize("text, today, asked", [
    # the lunar holidays, converted from the Chinese calendar: the most recent one, or the year said
    ("英伟达春节", SUNDAY, date(2026, 2, 17)),
    ("英伟达春节", date(2026, 2, 16), date(2025, 1, 29)),  # the day before: last year's
    ("英伟达2024年春节", SUNDAY, date(2024, 2, 10)),
    ("輝達農曆新年", SUNDAY, date(2026, 2, 17)),
    ("茅台大年初一", SUNDAY, date(2026, 2, 17)),
    ("英伟达去年中秋", SUNDAY, date(2025, 10, 6)),
    ("英伟达端午节", SUNDAY, date(2026, 6, 19)),
    # National Day in simplified characters is the mainland's
    ("英伟达国庆节", SUNDAY, date(2026, 10, 1)),
    ("茅台2024年国庆", SUNDAY, date(2024, 10, 1)),
])
def test_chinese_calendar_holidays(text: str, today: date, asked: date) -> None:
    assert _asked(text, today) == asked


def test_national_day_in_traditional_characters_is_asked() -> None:
    # October 1st in Hong Kong, the 10th in Taiwan: both are offered
    scan = scan_dates("輝達國慶", SUNDAY, language="zh-Hant")
    assert scan.value is None and "2026-10-01" in (scan.error or "") and "2026-10-10" in (scan.error or "")


@pytest.mark.parametrize("text", ["茅台春节前", "茅台春节后", "茅台春节行情", "茅台国庆长假", "茅台春节假期",
                                  "茅台中秋以来", "茅台中秋节前", "中秋节期间茅台", "茅台国庆节假期", "茅台端午节后"])
def test_a_holiday_span_or_season_is_not_a_day(text: str) -> None:
    p = parse_request(text, SUNDAY)
    assert (p.intent, p.asked_date, p.question) == ("analyze", SUNDAY, None)
