"""The one resolver of date phrases: a finder's :class:`~graph.request.date_meanings.Meaning` and today
become the day asked about, or why there is none (an impossible date, a question back, a day beyond the
calendar). All the calendar arithmetic of the date finders is here: offsets from today, weekdays, trading
sessions back, the ends of weeks, months and quarters, the most recent such day or month, two-digit years,
the Chinese calendar. The conventions are documented in :mod:`graph.request.dates`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from typing import get_args

from lunardate import LunarDate  # type: ignore[import-untyped]

from ..core.trading_days import previous_trading_day
from .date_hits import MIN_DATE, RANK_NOW, Beyond, DateHit
from .date_meanings import Kind, Meaning, Year

__all__ = ["counts_sessions", "resolve"]


def resolve(hit: DateHit, today: date, market: str = "US") -> DateHit | None:
    """``hit`` with what its meaning says on ``today``: its day, or why there is none. None when, on ``today``,
    the phrase is no date at all ("for 2030" is a horizon while 2030 is ahead). ``market`` (as
    ``listing_codes.market_of`` gives it) is the exchange whose sessions "N trading days ago" counts."""
    if hit.meaning is None:
        return hit
    if counts_sessions(hit.meaning):
        return _sessions_back(hit, -hit.meaning.n, today, market)
    return _KINDS[hit.meaning.kind](hit, hit.meaning, today)


def counts_sessions(meaning: Meaning | None) -> bool:
    """Does the phrase count trading sessions back ("3 trading days ago", "5个交易日前")? Its day depends on the
    listing's exchange."""
    return meaning is not None and meaning.kind == "offset" and meaning.unit == "session" and meaning.n < 0


# --------------------------------------------------------------------------
# the calendar


def _shift_months(d: date, months: int) -> date:
    """``d`` moved by whole months, the day clamped to the month's length (Mar 31 - 1 month
    -> Feb 28/29). Callers keep the result within years 1-9999."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def _last_day(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)


def _short_year(two: int, today: date) -> int:
    """A two-digit year in the most recent century: '24' is 2024, '98' 1998."""
    return two + (2000 if 2000 + two <= today.year else 1900)


def _spans(meaning: Meaning) -> tuple[int, int]:
    """The first and last months of what a phrase without a year names (a month, a quarter, a season)."""
    if meaning.kind == "quarter":
        return meaning.which * 3 - 2, meaning.which * 3
    if meaning.kind == "stretch":  # a season: three months
        return meaning.month, meaning.month + 2
    return meaning.month, meaning.month


def _year_of(year: Year, meaning: Meaning, today: date) -> int:
    """The year ``year`` names, for the months ``meaning`` spans (see :class:`Year`)."""
    first, last = _spans(meaning)
    if year.how == "said":
        return year.value
    if year.how == "short":
        return _short_year(year.value, today)
    if year.how == "shift":
        return today.year + year.value
    if year.how == "recent":
        return today.year if first <= today.month else today.year - 1
    if year.how == "coming":
        return today.year + (last < today.month)
    if year.how == "next":
        return today.year + (last <= today.month)
    return today.year - (today.month <= last)  # ended


def _impossible(year: int, month: int, day: int) -> str:
    """Why a year/month/day triple is not on the calendar (shown to the user)."""
    if 1 <= month <= 12 and day >= 1:
        first_next = date(year + (month == 12), month % 12 + 1, 1) if 1 <= year < 9999 else None
        if first_next:
            last = (first_next - timedelta(days=1)).day
            detail = f"{date(year, month, 1):%B %Y} only has {last} days"
        else:
            detail = "that year is out of range"
    elif not 1 <= month <= 12:
        detail = f"there is no month {month}"
    else:
        detail = "there is no day 0"
    return detail


def _on_calendar(hit: DateHit, year: int, month: int, day: int) -> DateHit:
    """The day, or why the calendar disagrees."""
    try:
        return replace(hit, value=date(year, month, day))
    except ValueError:
        return replace(hit, error=_impossible(year, month, day))


def _recent(hit: DateHit, month: int, day: int, latest: date) -> DateHit:
    """The most recent month/day on or before ``latest`` (looking back far enough for Feb 29)."""
    for year in range(latest.year, latest.year - 9, -1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= latest:
            return replace(hit, value=candidate)
    return replace(hit, how="date", error=_impossible(2024, month, day))


def _month_of(hit: DateHit, year: int, month: int, today: date) -> DateHit:
    """A month of a year: its last day (today while it is the current month), or out of range."""
    if year < 1:
        return replace(hit, beyond="past")
    if year > 9998:
        return replace(hit, beyond="future")
    if (year, month) == (today.year, today.month):
        return replace(hit, value=today)
    return replace(hit, value=_last_day(year, month))


def _quarter_of(hit: DateHit, year: int, quarter: int, today: date) -> DateHit:
    """A quarter's last day; today while it is the current quarter; out of range beyond the calendar."""
    if year < 1:
        return replace(hit, beyond="past")
    if year > 9998:
        return replace(hit, beyond="future")
    current = (year, quarter) == (today.year, (today.month - 1) // 3 + 1)
    return replace(hit, value=today if current else _last_day(year, quarter * 3))


def _quarter_index(today: date) -> int:
    """The current quarter counted from the first of year 0."""
    return today.year * 4 + (today.month - 1) // 3


def _months_on(meaning: Meaning, today: date) -> tuple[int, int]:
    """The year and month a meaning names: its own, or the month ``n`` from the current one."""
    if meaning.year is None:
        first = _shift_months(today.replace(day=1), meaning.n)
        return first.year, first.month
    return _year_of(meaning.year, meaning, today), meaning.month


def _lunar_day(year: int, month: int, day: int) -> date | None:
    """The Gregorian day of a Chinese-calendar day (lunardate: a maintained pure-Python table of the Chinese
    calendar, 1900-2099); None outside the table's years."""
    try:
        return LunarDate(year, month, day).to_solar_date()
    except ValueError:
        return None


# Units of "N units ago": days, or months ("in 3 trading days" counts days: it is refused as ahead anyway).
_UNIT_DAYS = {"day": 1, "session": 1, "week": 7, "wk": 7, "fortnight": 14}
_UNIT_MONTHS = {"month": 1, "mo": 1, "quarter": 3, "year": 12, "yr": 12, "decade": 120, "century": 1200}


def _offset(today: date, n: int, unit: str) -> tuple[date | None, Beyond | None]:
    """``today`` moved by ``n`` units (n < 0: back), or which side of the calendar it falls off."""
    off: Beyond = "past" if n < 0 else "future"
    if unit in _UNIT_DAYS:
        days = n * _UNIT_DAYS[unit]
        room = (today - date.min).days if n < 0 else (date.max - today).days
        if abs(days) > room:
            return None, off
        return today + timedelta(days=days), None
    months = n * _UNIT_MONTHS[unit]
    index = today.year * 12 + today.month - 1 + months
    if not 12 <= index < 9999 * 12:  # years 1 to 9998
        return None, off
    return _shift_months(today, months), None


def _sessions_back(hit: DateHit, n: int, today: date, market: str) -> DateHit:
    """``n`` sessions of ``market``'s exchange back from today; a count reaching before the desk's first date
    is refused."""
    if market != "US":
        hit = replace(hit, how=f"relative date ({market} sessions)")
    if n > (today - MIN_DATE).days:  # more sessions than calendar days since MIN_DATE
        return replace(hit, value=None, beyond="past")
    d = today
    for _ in range(n):
        d = previous_trading_day(d, market)
        if d < MIN_DATE:
            return replace(hit, value=None, beyond="past")
    return replace(hit, value=d, beyond=None)


def _weekday(today: date, weekday: int, mode: str, n: int) -> date:
    if mode == "week":
        return today - timedelta(days=today.weekday() - weekday - 7 * n)
    if mode == "next":
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    back = (today.weekday() - weekday) % 7
    if mode == "last" and back == 0:
        back = 7  # "last Friday" said on a Friday means a week ago
    return today - timedelta(days=back)


def _asked_part(hit: DateHit, year: int, month: int, today: date, vague: bool) -> DateHit:
    """Which day of a beginning or a part ("early March", "年初", "H1 2024", "last summer") is asked, unless it
    is all ahead or too early."""
    if not 1 <= year <= 9998 or (year, month) > (today.year, today.month):
        return replace(hit, beyond="past" if year < 1 else "future")
    if year < MIN_DATE.year:
        return replace(hit, beyond="past")
    return replace(hit, ask="vague", vague=vague)


# --------------------------------------------------------------------------
# one resolver a kind


def _today(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, value=today)


def _offset_hit(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    value, beyond = _offset(today, meaning.n, meaning.unit)
    return replace(hit, value=value, beyond=beyond)


def _weekday_hit(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, value=_weekday(today, meaning.which, meaning.mode, meaning.n))


def _week_end(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, value=_weekday(today, 4, "week", meaning.n))


def _month_end(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    """A month's last day even while it is ahead, as "the end of the month"."""
    year, month = _months_on(meaning, today)
    if not 1 <= year <= 9998:
        return _month_of(hit, year, month, today)
    return replace(hit, value=_last_day(year, month))


def _quarter_end(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    """The last day of the quarter n from the current one, even while it is ahead."""
    year, quarter = divmod(_quarter_index(today) + meaning.n, 4)
    return replace(hit, value=_last_day(year, quarter * 3 + 3))


def _month(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    year, month = _months_on(meaning, today)
    return _month_of(hit, year, month, today)


def _past_month(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    """'last March': last year's when March is not yet over this year, else which one is asked."""
    if meaning.month >= today.month:
        return _month_of(hit, today.year - 1, meaning.month, today)
    options = (_last_day(today.year, meaning.month), _last_day(today.year - 1, meaning.month))
    return replace(hit, ask="ambiguous", options=options)


def _quarter(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    if meaning.year is None:  # the quarter n from the current one
        year, quarter = divmod(_quarter_index(today) + meaning.n, 4)
        return _quarter_of(hit, year, quarter + 1, today)
    return _quarter_of(hit, _year_of(meaning.year, meaning, today), meaning.which, today)


def _date(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    assert meaning.year is not None
    return _on_calendar(hit, _year_of(meaning.year, meaning, today), meaning.month, meaning.day)


def _recent_day(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    if meaning.mode == "next":
        ahead = date(today.year, meaning.month, meaning.day) <= today
        return _on_calendar(hit, today.year + ahead, meaning.month, meaning.day)
    latest = today - timedelta(days=1) if meaning.mode == "last" else today  # "last Christmas" on Dec 25
    return _recent(hit, meaning.month, meaning.day, latest)


def _lunar(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    """春节, 中秋 -> the most recent one on or before today; 2024年春节 -> that year's."""
    month, day = meaning.month, meaning.day
    if meaning.year is not None:
        year = _year_of(meaning.year, meaning, today)
        found = _lunar_day(year, month, day)
    else:
        year = today.year
        found = next((d for d in (_lunar_day(today.year - back, month, day) for back in (0, 1))
                      if d is not None and d <= today), None)
    if found is None:  # outside 1900-2099: far beyond the desk's dates either way
        return replace(hit, beyond="past" if year < MIN_DATE.year else "future")
    return replace(hit, value=found)


def _national_day(hit: DateHit, meaning: Meaning, today: date) -> DateHit | None:
    """National Day on each of its days (October): one, or which one is asked."""
    options = []
    for day in meaning.numbers:
        if meaning.year is not None:
            read = _on_calendar(hit, _year_of(meaning.year, meaning, today), 10, day)
        else:
            read = _recent(hit, 10, day, today)
        if read.value is not None:
            options.append(read.value)
    if len(options) == 2:
        return replace(hit, ask="ambiguous", options=(options[0], options[1]))
    return replace(hit, value=options[0]) if options else None


def _two_readings(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    """'24-05-01': day-month-year (2001-05-24) or year-month-day (2024-05-01)? Whichever is a date, or both
    offered back."""
    first, second, third = meaning.numbers
    day_first = _on_calendar(replace(hit, how="day-first date"), _short_year(third, today), second, first)
    year_first = _on_calendar(replace(hit, how="year-first date"), _short_year(first, today), second, third)
    if first > 31 or day_first.value is None:
        return year_first if year_first.value is not None or first > 31 else day_first
    if year_first.value is None or year_first.value == day_first.value:
        return day_first
    return replace(hit, how="ambiguous date", ask="ambiguous", options=(day_first.value, year_first.value))


def _year(hit: DateHit, meaning: Meaning, today: date) -> DateHit | None:
    """A year alone, as "in 2022": which day of it is asked back; the current one is today."""
    assert meaning.year is not None
    year = _year_of(meaning.year, meaning, today)
    if meaning.mode == "for" and year > today.year:
        return None  # "buy NVDA for 2030": a horizon, not the day to analyze
    hit = replace(hit, year_only=year)
    if year == today.year:
        return replace(hit, value=today, rank=RANK_NOW, how="this year")
    if year > today.year:
        return replace(hit, value=date(year, 1, 1))
    if year < MIN_DATE.year:
        return replace(hit, beyond="past")
    return replace(hit, ask="year")


def _decade(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    if meaning.n + 9 < MIN_DATE.year:
        return replace(hit, beyond="past")
    if meaning.n > today.year:
        return replace(hit, value=date(meaning.n, 1, 1))
    return replace(hit, ask="vague", vague=True)


def _part(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    year, month = _months_on(meaning, today)
    return _asked_part(hit, year, month, today, vague=meaning.kind == "stretch")


def _vague(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, ask="vague", vague=True)


def _ask(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, ask=meaning.ask, unclear=meaning.reason or None, suggest=meaning.suggest)


def _impossible_hit(hit: DateHit, meaning: Meaning, today: date) -> DateHit:
    return replace(hit, error=meaning.reason)


_KINDS: dict[Kind, Callable[[DateHit, Meaning, date], DateHit | None]] = {
    "today": _today, "now": _today, "offset": _offset_hit, "weekday": _weekday_hit, "week_end": _week_end,
    "month_end": _month_end, "quarter_end": _quarter_end, "month": _month, "past_month": _past_month,
    "quarter": _quarter, "date": _date, "recent_day": _recent_day, "lunar": _lunar,
    "national_day": _national_day, "two_readings": _two_readings, "year": _year, "decade": _decade,
    "part": _part, "stretch": _part, "vague": _vague, "ask": _ask, "impossible": _impossible_hit,
}  # fmt: skip
assert set(_KINDS) == set(get_args(Kind)), "a kind of meaning without its resolver"
