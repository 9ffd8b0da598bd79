"""Finding the date a chat message asks about.

Dates are found before tickers and blanked out of the text, so "Mar 15" can
never be read as the ticker MAR. Each finder below yields hits in the
lower-cased message; :func:`scan_dates` runs them in order (blanking each hit
so later finders don't see it again) and :func:`_choose_date` picks one or
explains why none can be used.

Date conventions (documented here because they are choices, not facts):

* no date, "now", "right now", "currently" -> today;
* "last <weekday>" -> the most recent such day strictly before today;
  "<weekday>" / "on <weekday>" -> the most recent such day on or before today;
  "this <weekday>" -> that day of the current Monday-Sunday week (may be in
  the future, which is then refused);
* "last week" -> the Friday of the previous Monday-Sunday week;
  "last month" -> the last day of the previous month; "last year" -> Dec 31
  of the previous year;
* "N days/weeks/months/years ago" -> calendar arithmetic; "N trading days
  ago" steps over NYSE sessions;
* "July 4th" (no year) -> the most recent July 4th on or before today;
* "Dec 2023" (month and year) -> the last day of that month (today if it is
  the current month);
* numeric dates are US order (05/01/2024 = May 1) unless the first number is
  over 12 (15/03/2024 = March 15);
* "end of 2023" / "year-end 2023" -> December 31st;
* a future date right after an event word ("earnings next week") dates the
  event, not the analysis, and is ignored; any other future date is refused;
* dates before :data:`MIN_DATE`, impossible dates ("Feb 30") and two
  different dates are refused with a question back;
* the trade date is always the last NYSE session on or before the asked date
  (worked out by the caller, see :mod:`graph.request.intent`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from ..trading_days import last_trading_day, previous_trading_day
from .text import blank, lower, prev_word
from .wordlists import load_words

__all__ = ["MIN_DATE", "DateScan", "scan_dates"]

# Market data before this is patchy for most symbols; refuse rather than
# produce an analysis on nothing.
MIN_DATE = date(1990, 1, 1)

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ORD_WORDS = "st|nd|rd|th"
_ORD = rf"(?:{_ORD_WORDS})?"
_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple": 2, "couple of": 2, "few": 3, "several": 3,
}  # fmt: skip
# Words that introduce a date; a bare "5/1" only counts as a date after one.
_DATE_PREPS = load_words("date_preps.txt")

# How specific a date phrase is. Only the highest-ranked hits are used, so
# "now" never argues with "last Friday", and "today" counts as explicit.
RANK_NOW, RANK_TODAY, RANK_RELATIVE, RANK_ABSOLUTE = 0, 1, 2, 3


@dataclass
class _DateHit:
    start: int
    end: int
    text: str
    value: date | None
    rank: int
    how: str
    error: str | None = None  # why the date is impossible, e.g. "there is no month 13"


@dataclass
class DateScan:
    """What :func:`scan_dates` found: at most one usable date, or a question."""

    remaining: str  # the message with date phrases blanked out
    value: date | None = None
    explicit: bool = False  # the user named a date (not just "now")
    reason: str = ""
    error: str | None = None  # a clarifying question if the date is unusable


def scan_dates(msg: str, today: date) -> DateScan:
    """Find the date ``msg`` asks about, relative to ``today``."""
    low = lower(msg)
    hits: list[_DateHit] = []
    for finder in _DATE_FINDERS:
        for hit in finder(low, today):
            hits.append(hit)
            low = blank(low, hit.start, hit.end)
    remaining = msg
    for hit in hits:
        hit.text = msg[hit.start : hit.end].strip()  # quote it back as typed
        remaining = blank(remaining, hit.start, hit.end)
    # "buy NVDA before earnings next week?" - a future date that only dates an
    # event is context, not the day to analyze.
    low = lower(msg)
    hits = [h for h in hits if not (h.value and h.value > today and _dates_an_event(low, h.start))]
    return _choose_date(hits, remaining, today)


# Words that make a following future date an event's date ("earnings next week").
_EVENT_WORDS = load_words("event_words.txt")


def _dates_an_event(low: str, start: int) -> bool:
    words = re.findall(r"[a-z']+", low[max(0, start - 60) : start])[-4:]
    return any(w in _EVENT_WORDS for w in words)


def _choose_date(hits: list[_DateHit], remaining: str, today: date) -> DateScan:
    scan = DateScan(remaining=remaining)
    errors = [h for h in hits if h.error]
    if errors:
        bad = errors[0]
        scan.error = (
            f"'{bad.text}' isn't a real date ({bad.error}), so that date doesn't exist. "
            f"Which date did you mean? Type it like `2024-05-01`."
        )
        scan.reason = f"impossible date '{bad.text}': {bad.error}"
        return scan
    if not hits:
        return scan
    best = max(h.rank for h in hits)
    top = [h for h in hits if h.rank == best]
    distinct = sorted({h.value for h in top if h.value})
    if len(distinct) > 1:
        shown = " or ".join(d.isoformat() for d in distinct[:3])
        scan.error = (
            f"You mentioned more than one date ({shown}). Which one should I use? "
            f"Reply with a single date like `{distinct[-1].isoformat()}`."
        )
        scan.reason = "several dates: " + ", ".join(f"'{h.text}'" for h in top)
        return scan
    chosen = top[0]
    scan.value, scan.explicit = chosen.value, chosen.rank >= RANK_TODAY
    scan.reason = f"date {chosen.value} from {chosen.how} '{chosen.text}'"
    if chosen.value and chosen.value > today:
        scan.error = (
            f"I can't analyze the future: {chosen.value.isoformat()} is after today "
            f"({today.isoformat()}). Ask about today or an earlier date, "
            f"e.g. `{last_trading_day(today).isoformat()}`."
        )
        scan.reason = f"future date '{chosen.text}' ({chosen.value})"
    elif chosen.value and chosen.value < MIN_DATE:
        scan.error = (
            f"{chosen.value.isoformat()} is too far back: I only have market data from "
            f"{MIN_DATE.year} on. Pick a date on or after {MIN_DATE.isoformat()}, e.g. `2024-05-01`."
        )
        scan.reason = f"date before {MIN_DATE.year} '{chosen.text}'"
    return scan


def _make_date(year: int, month: int, day: int, m: re.Match[str], how: str, rank: int = RANK_ABSOLUTE) -> _DateHit:
    """A date hit, or an 'impossible date' hit when the calendar disagrees."""
    text = m.group(0).strip()
    try:
        return _DateHit(m.start(), m.end(), text, date(year, month, day), rank, how)
    except ValueError:
        return _DateHit(m.start(), m.end(), text, None, rank, how, error=_impossible(year, month, day))


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


def _year(text: str, today: date) -> int:
    """Four-digit years as written; two-digit years in the most recent century."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if 2000 + year <= today.year else 1900
    return year


def _month(text: str) -> int:
    return _MONTHS[text[:3].lower()]


def _find_iso(low: str, today: date) -> Iterable[_DateHit]:
    """2024-05-01, 2024/05/01, 2024.05.01 and compact 20240501."""
    for m in re.finditer(r"(?<![\d.$/-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/]|[.-]\d)", low):
        yield _make_date(int(m.group(1)), int(m.group(3)), int(m.group(4)), m, "ISO date")
    for m in re.finditer(r"(?<![\d$.])((?:19|20)\d{2})(\d{2})(\d{2})(?![\d])", low):
        month, day = int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 and 1 <= day <= 31:
            yield _make_date(int(m.group(1)), month, day, m, "compact date")


def _find_numeric(low: str, today: date) -> Iterable[_DateHit]:
    """05/01/2024 (US order), 15/03/2024 (day first when unambiguous), 5-1-24."""
    pattern = r"(?<![\d.$/-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})(?![\d/]|[.-]\d)"
    for m in re.finditer(pattern, low):
        first, second = int(m.group(1)), int(m.group(3))
        month, day = (second, first) if first > 12 and second <= 12 else (first, second)
        how = "day-first date" if first > 12 and second <= 12 else "US date"
        yield _make_date(_year(m.group(4), today), month, day, m, how)


def _find_named(low: str, today: date) -> Iterable[_DateHit]:
    """Month names with a year: 'March 15, 2024', '15 March 2024', 'Dec 2023'."""
    patterns = (
        (rf"\b{_MONTH}\s*(\d{{1,2}}){_ORD}(?:\s*,\s*|\s+|-)(\d{{4}})\b", "md"),
        (rf"\b(\d{{1,2}}){_ORD}(?:\s+of)?[\s-]+{_MONTH},?[\s-]+(\d{{4}})\b", "dm"),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, low):
            if order == "md":
                month, day, year = _month(m.group(1)), int(m.group(2)), int(m.group(3))
            else:
                day, month, year = int(m.group(1)), _month(m.group(2)), int(m.group(3))
            yield _make_date(year, month, day, m, "date")
            low = blank(low, m.start(), m.end())
    # "end of 2023", "year-end 2023", "2023 year end": December 31st.
    for m in re.finditer(r"\b(?:(?:the\s+)?end\s+of|year[\s-]?end)\s+(\d{4})\b|\b(\d{4})\s+year[\s-]?end\b", low):
        yield _make_date(int(m.group(1) or m.group(2)), 12, 31, m, "year end")
        low = blank(low, m.start(), m.end())
    # Month and year only: the last day of that month (or today if current).
    for m in re.finditer(rf"\b{_MONTH},?\s+(\d{{4}})\b", low):
        year, month = int(m.group(2)), _month(m.group(1))
        if not 1 <= year <= 9998:
            continue
        end = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
        if (year, month) == (today.year, today.month):
            end = today
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), end, RANK_ABSOLUTE, "month and year")


def _find_named_no_year(low: str, today: date) -> Iterable[_DateHit]:
    """'July 4th', 'the 4th of July', 'on 15 March': the most recent such day.

    Without a year these collide with option-speak ("10 march calls") and
    "may" the verb, so the day-first form needs an ordinal, "of" or a
    preposition, and "may 5" needs a preposition or a very short message.
    """
    not_quantity = r"(?!\s*(?:%|\$|x\b|k\b|m\b|shares|calls|puts|contracts|dollars|percent|bucks|strike|dma|day))"
    short = len(re.findall(r"\S+", low)) <= 3
    month_day = rf"\b{_MONTH}\s*(\d{{1,2}})({_ORD_WORDS})?\b(?![.,:/]\d){not_quantity}"
    for m in re.finditer(month_day, low):
        if m.group(1) == "may" and not (m.group(3) or short or prev_word(low, m.start()) in _DATE_PREPS):
            continue  # "I may 2x my position"
        hit = _recent_occurrence(m, _month(m.group(1)), int(m.group(2)), today)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    day_month = rf"\b(\d{{1,2}})({_ORD_WORDS})?(\s+of)?\s+{_MONTH}(?![a-z]){not_quantity}"
    for m in re.finditer(day_month, low):
        marked = m.group(2) or m.group(3) or prev_word(low, m.start()) in _DATE_PREPS
        if not marked:
            continue
        hit = _recent_occurrence(m, _month(m.group(4)), int(m.group(1)), today)
        if hit:
            yield hit


def _find_numeric_no_year(low: str, today: date) -> Iterable[_DateHit]:
    """'on 5/1': only after a preposition, or in very short messages ('NVDA 5/1')."""
    short = len(re.findall(r"\S+", low)) <= 3
    for m in re.finditer(r"(?<![\d.$/-])(\d{1,2})/(\d{1,2})(?![\d/%]|\.\d)", low):
        if not (short or prev_word(low, m.start()) in _DATE_PREPS):
            continue
        month, day = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            hit = _recent_occurrence(m, month, day, today)
            if hit:
                yield hit


def _recent_occurrence(m: re.Match[str], month: int, day: int, today: date) -> _DateHit | None:
    """Most recent month/day on or before today (looks back far enough for Feb 29)."""
    text = m.group(0).strip()
    if not 1 <= month <= 12 or day < 1:
        return None
    for year in range(today.year, today.year - 9, -1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return _DateHit(m.start(), m.end(), text, candidate, RANK_ABSOLUTE, "date without year")
    return _DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "date", error=_impossible(2024, month, day))


def _find_relative(low: str, today: date) -> Iterable[_DateHit]:
    """yesterday, N days ago, last week/month/year, tomorrow, next week."""
    simple: tuple[tuple[str, Callable[[], date]], ...] = (
        (r"\b(?:the\s+)?day\s+before\s+yesterday\b", lambda: today - timedelta(days=2)),
        (r"\b(?:yesterday|yday|yest)\b(?:'s)?", lambda: today - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+week(?:'s)?\b", lambda: _last_week_friday(today)),
        (r"\b(?:last|previous|prior)\s+month(?:'s)?\b", lambda: today.replace(day=1) - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+year(?:'s)?\b", lambda: date(today.year - 1, 12, 31)),
        (r"\b(?:tomorrow|tmrw|tmr|tomorow)\b", lambda: today + timedelta(days=1)),
        (r"\bnext\s+week\b", lambda: today + timedelta(days=7)),
        (r"\bnext\s+month\b", lambda: _shift_months(today, 1)),
        (r"\bnext\s+year\b", lambda: _shift_months(today, 12)),
    )
    for pattern, compute in simple:
        for m in re.finditer(pattern, low):
            yield _DateHit(m.start(), m.end(), m.group(0).strip(), compute(), RANK_RELATIVE, "relative date")
            low = blank(low, m.start(), m.end())
    amount = (r"(\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
              r"|couple(?:\s+of)?|few|several)")
    pattern = rf"\b{amount}\s+(trading\s+|business\s+|market\s+)?(day|week|month|year)s?\s+(ago|back|earlier)\b"
    for m in re.finditer(pattern, low):
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[" ".join(m.group(1).split())]
        value = _ago(today, n, m.group(3), trading=bool(m.group(2)))
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), value, RANK_RELATIVE, "relative date")


def _find_weekday(low: str, today: date) -> Iterable[_DateHit]:
    """'last Friday', 'on Monday', 'this wed', "Friday's close", bare 'friday'."""
    names = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
    pattern = rf"\b(?:(last|past|previous|prior|this|next|coming|on)\s+)?({names})\b(?:'s)?"
    for m in re.finditer(pattern, low):
        mode, name = m.group(1), m.group(2)
        if not mode and not name.endswith("day"):
            continue  # bare "sun", "sat", "wed" are too likely to be other words
        value = _weekday_date(today, _WEEKDAYS[name], mode or "")
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), value, RANK_RELATIVE, "weekday")


def _find_now(low: str, today: date) -> Iterable[_DateHit]:
    """'today' is an explicit choice; 'now'/'currently' is just filler."""
    for m in re.finditer(r"(?<!\$)\b(?:today|todays|this\s+(?:morning|afternoon|evening)|tonight)\b", low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_TODAY, "today")
    filler = r"(?<!\$)\b(?:right\s+now|now|currently|at\s+the\s+moment|this\s+week|this\s+month|this\s+year|eod)\b"
    for m in re.finditer(filler, low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_NOW, "now")


_DATE_FINDERS = (
    _find_iso,
    _find_numeric,
    _find_named,
    _find_named_no_year,
    _find_numeric_no_year,
    _find_relative,
    _find_weekday,
    _find_now,
)


def _last_week_friday(today: date) -> date:
    monday_this_week = today - timedelta(days=today.weekday())
    return monday_this_week - timedelta(days=3)


def _weekday_date(today: date, weekday: int, mode: str) -> date:
    if mode in ("next", "coming"):
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    if mode == "this":
        return today - timedelta(days=today.weekday()) + timedelta(days=weekday)
    back = (today.weekday() - weekday) % 7
    if mode in ("last", "past", "previous", "prior") and back == 0:
        back = 7  # "last Friday" said on a Friday means a week ago
    return today - timedelta(days=back)


def _shift_months(d: date, months: int) -> date:
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    for day in (d.day, 30, 29, 28):  # clamp Jan 31 - 1 month -> Dec 31, Mar 31 -> Feb 28/29
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def _ago(today: date, n: int, unit: str, trading: bool) -> date:
    n = min(n, 100 * 365)  # "9999 days ago" should be refused as too early, not overflow
    if trading and unit == "day":
        d = today
        for _ in range(n):
            d = previous_trading_day(d)
        return d
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    return _shift_months(today, -n * (12 if unit == "year" else 1))
