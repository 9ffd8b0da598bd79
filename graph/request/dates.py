"""Finding the date a chat message asks about.

Dates are found before tickers and blanked out of the text, so "Mar 15" can
never be read as the ticker MAR. Each finder below yields hits in the
lower-cased message; :func:`scan_dates` runs them in order (blanking each hit
so later finders don't see it again) and :func:`_choose_date` picks one or
explains why none can be used.

The rule above all: never analyse a different date than the one asked about.
Whatever looks like a date but can't be read as exactly one day is asked back
("2024-05-01-01", "-2024-01-01", "1.5 days ago", "in 2022", "24-05-01"),
never dropped in favour of today.

Date conventions (documented here because they are choices, not facts):

* no date, "now", "right now", "currently" -> today;
* "last <weekday>" -> the most recent such day strictly before today;
  "<weekday>" / "on <weekday>" -> the most recent such day on or before today;
  "this <weekday>" -> that day of the current Monday-Sunday week (may be in
  the future, which is then refused);
* "last week" -> the Friday of the previous Monday-Sunday week;
  "last month" -> the last day of the previous month; "last year" -> Dec 31
  of the previous year; "end of the week/month/quarter/year" -> its Friday /
  last day (refused while still ahead);
* "N days/weeks/months/quarters/years/decades ago" -> calendar arithmetic
  (N in digits, "1,000", "1e3" or words up to "ten thousand"); "N trading
  days ago" steps over NYSE sessions; "in N days", "N days from now" and
  "N days later" are in the future and refused; a number that is not a whole
  positive count ("1.5", "-3") is asked back, and so is "days ago" without one;
* "July 4th" (no year) -> the most recent July 4th on or before today;
* "Dec 2023", "2023-12", "12/2023" (month and year) -> the last day of that
  month (today if it is the current month); "2024-13" is refused, while
  "2024-25" is a season and not a date;
* "20240501" is a date; "20241301" an impossible one; "20000000" a number;
* a year alone ("in 2022", "NVDA 2022") is a whole year: which day is asked
  back; the current year means today; a future year or one before
  :data:`MIN_DATE` is refused ("Q3 2024", "FY 2025" are reporting periods, not
  dates, "since 2020" starts a span, and a future year after "by"/"for" is
  a horizon, not a date); a decade ("in the 1990s") is asked back too;
* numeric dates are US order (05/01/2024 = May 1) unless the first number is
  over 12 (15/03/2024 = March 15); with a two-digit year that could also be
  year-month-day ("24-05-01") the two readings are offered back;
* "end of 2023" / "year-end 2023" -> December 31st;
* a future date right after an event word ("earnings next week") dates the
  event, not the analysis, and is ignored; any other future date is refused;
* dates before :data:`MIN_DATE`, impossible dates ("Feb 30") and two
  different dates are refused with a question back;
* the trade date is always the last NYSE session on or before the asked date
  (worked out by the caller, see :mod:`graph.request.intent`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Literal

from ..core.trading_days import last_trading_day, previous_trading_day
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
# Counting words ("a week ago", "twenty years ago", "a couple of days ago").
_SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
_MULTIPLIERS = {"hundred": 100, "dozen": 12}
_LARGE_NUMBERS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER_WORD = "|".join(sorted([*_SMALL_NUMBERS, *_MULTIPLIERS, *_LARGE_NUMBERS, "a", "an", "and", "of"],
                               key=len, reverse=True))
# Words that introduce a date; a bare "5/1" only counts as a date after one.
_DATE_PREPS = load_words("date_preps.txt")
# A bare year counts as a date after one of these ("in 2022", "during 2008").
_YEAR_PREPS = frozenset({"in", "during", "year", "yr", "on", "for", "of", "circa"})
# "since 2020", "by 2030": one end of a span, not a day to analyze.
_SPAN_WORDS = frozenset({"since", "from", "to", "until", "till", "through", "by", "before", "after"})
# "Q3 2024", "FY 2025", "2H 2024": a reporting period, not a day to analyze.
_PERIOD_LABEL = re.compile(r"(?:q[1-4]|[1-4]q|h[12]|[12]h|fy|cy|fiscal|calendar)")
# "up 20% in 3 days": a measured move, not a date in the future.
_MOVE_WORDS = load_words("move_words.txt")
# Numbers that are amounts, not days or years: "10 march calls", "2000 shares".
_NOT_QUANTITY = r"(?!\s*(?:%|\$(?![a-z])|x\b|k\b|m\b|shares|calls|puts|contracts|dollars|percent|bucks|strike|dma|day))"
# What may follow a numeric date: not more digits or letters ("2024-05-01xyz" is not read
# as 2024-05-01); an ISO time ("2024-05-01T10:00") may.
_DATE_END = r"(?:(?=t\d)|(?![\w/]|[.-]\d))"

# How specific a date phrase is. Only the highest-ranked hits are used, so
# "now" never argues with "last Friday", and "today" counts as explicit.
RANK_NOW, RANK_TODAY, RANK_RELATIVE, RANK_ABSOLUTE = 0, 1, 2, 3

Beyond = Literal["future", "past"]
# What a hit that is not one usable day asks back.
Ask = Literal["unreadable", "vague", "year", "ambiguous"]


@dataclass
class _DateHit:
    start: int
    end: int
    text: str
    value: date | None
    rank: int
    how: str
    error: str | None = None  # why the date is impossible, e.g. "there is no month 13"
    ask: Ask | None = None  # not one day: the user is asked which one
    unclear: str | None = None  # for "unreadable": why, e.g. "the number can't be negative"
    suggest: str | None = None  # for "unreadable": a date the user may have meant
    options: tuple[date, ...] = ()  # for "ambiguous": the readings
    beyond: Beyond | None = None  # out of range, too far to even name a calendar day
    vague: bool = False  # "years ago": asked back only if nothing more specific was said
    year_only: int | None = None  # "in 2022": a whole year (consistent with a day in it)


@dataclass
class DateScan:
    """What :func:`scan_dates` found: at most one usable date, or a question."""

    remaining: str  # the message with date phrases blanked out
    value: date | None = None
    explicit: bool = False  # the user named a date (not just "now")
    reason: str = ""
    error: str | None = None  # a clarifying question if the date is unusable


def scan_dates(msg: str, today: date, shouted: bool = False) -> DateScan:
    """Find the date ``msg`` asks about, relative to ``today``.

    ``shouted`` (an all-caps message) lets an upper-case preposition right before a
    date be blanked with it: in "WHAT ABOUT NVDA, ON 05/01/2024" ON is not ON Semi.
    """
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
        # "on 2024-05-01": the preposition goes with the date (not the ticker ON).
        prep = re.search(r"(?<![\w$])([A-Za-z]+)\s+$", remaining[max(0, hit.start - 12) : hit.start])
        if prep and prep.group(1).lower() in _DATE_PREPS and (shouted or prep.group(1).islower()):
            remaining = blank(remaining, hit.start - len(prep.group(0)), hit.start)
    # "buy NVDA before earnings next week?" - a future date that only dates an
    # event is context, not the day to analyze.
    low = lower(msg)
    hits = [h for h in hits if not (_is_future(h, today) and _dates_an_event(low, h.start))]
    return _choose_date(hits, remaining, today)


# Words that make a following future date an event's date ("earnings next week").
_EVENT_WORDS = load_words("event_words.txt")


def _dates_an_event(low: str, start: int) -> bool:
    words = re.findall(r"[a-z']+", low[max(0, start - 60) : start])[-4:]
    return any(w in _EVENT_WORDS for w in words)


def _is_future(hit: _DateHit, today: date) -> bool:
    return hit.beyond == "future" or (hit.value is not None and hit.value > today)


def _is_too_early(hit: _DateHit) -> bool:
    return hit.beyond == "past" or (hit.value is not None and hit.value < MIN_DATE)


def _choose_date(hits: list[_DateHit], remaining: str, today: date) -> DateScan:
    scan = DateScan(remaining=remaining)
    specific = [h for h in hits if h.rank > RANK_NOW and not h.vague and h.year_only is None]
    if specific:
        # "years ago" next to "2024-05-01" adds nothing; "in 2024" next to it agrees, while
        # "in 2023" next to it is a second date.
        years = {h.value.year for h in specific if h.value}
        hits = [h if h.year_only is None else replace(h, ask=None, rank=RANK_ABSOLUTE)
                for h in hits if not h.vague and not (h.year_only is not None and h.year_only in years)]
    problems = sorted((h for h in hits if h.error or h.ask), key=lambda h: h.start)
    if problems:
        bad = problems[0]
        scan.error = _question(bad)
        kind = "impossible" if bad.error else "unclear"
        scan.reason = f"{kind} date '{bad.text}': {bad.error or bad.unclear or bad.ask}"
        return scan
    if not hits:
        return scan
    best = max(h.rank for h in hits)
    top = [h for h in hits if h.rank == best]
    distinct: dict[object, _DateHit] = {}
    for h in top:
        distinct.setdefault(h.year_only or h.value or h.text, h)
    if len(distinct) > 1:
        ordered = sorted(distinct.values(), key=lambda h: h.start)
        shown = " or ".join(_shown(h) for h in ordered[:3])
        example = next((h.value.isoformat() for h in reversed(ordered) if h.value and h.year_only is None),
                       "2024-05-01")
        scan.error = (
            f"You mentioned more than one date ({shown}). Which one should I use? "
            f"Reply with a single date like `{example}`."
        )
        scan.reason = "several dates: " + ", ".join(f"'{h.text}'" for h in top)
        return scan
    chosen = top[0]
    scan.value, scan.explicit = chosen.value, chosen.rank >= RANK_TODAY
    scan.reason = f"date {chosen.value} from {chosen.how} '{chosen.text}'"
    if _is_future(chosen, today):
        scan.value = None
        scan.error = (
            f"I can't analyze the future: {_shown(chosen)} is after today ({today.isoformat()}). "
            f"Ask about today or an earlier date, e.g. `{last_trading_day(today).isoformat()}`."
        )
        scan.reason = f"future date '{chosen.text}' ({chosen.value or 'beyond the calendar'})"
    elif _is_too_early(chosen):
        scan.value = None
        scan.error = (
            f"{_shown(chosen)} is too far back: the earliest date I can analyze is {MIN_DATE.isoformat()} "
            f"(I only have market data from {MIN_DATE.year} on). Pick a date on or after "
            f"{MIN_DATE.isoformat()}, e.g. `2024-05-01`."
        )
        scan.reason = f"date before {MIN_DATE.year} '{chosen.text}' ({chosen.value or 'beyond the calendar'})"
    return scan


def _quote(text: str, limit: int = 40) -> str:
    """User text to quote back: bounded, and no backticks to break the Markdown."""
    text = " ".join(text.replace("`", "'").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(hit: _DateHit) -> str:
    """How a hit is named back: a typed date by its ISO form, anything else as typed."""
    if hit.value is not None and hit.year_only is None and hit.how != "decade":
        if hit.rank == RANK_ABSOLUTE:
            return hit.value.isoformat()
        return f"'{_quote(hit.text)}' ({hit.value.isoformat()})"
    return f"'{_quote(hit.text)}'"


def _question(hit: _DateHit) -> str:
    """What to ask back about a date that is not one usable day."""
    q = _quote(hit.text)
    if hit.error:
        return (f"'{q}' isn't a real date ({hit.error}), so that date doesn't exist. "
                f"Which date did you mean? Type it like `2024-05-01`.")
    if hit.ask == "year" and hit.year_only is not None:
        example = last_trading_day(date(hit.year_only, 12, 31)).isoformat()
        return (f"'{q}' is a whole year: which day of it should I analyze? "
                f"Type a date like `{example}` (its last trading day).")
    if hit.ask == "ambiguous" and len(hit.options) == 2:
        first, second = (d.isoformat() for d in hit.options)
        return f"'{q}' could be {first} or {second}. Which one did you mean? Type it like `{second}`."
    if hit.ask == "vague":
        return f"'{q}' doesn't say which day. Which date did you mean? Type it like `2024-05-01`."
    offer = f" Did you mean `{hit.suggest}`?" if hit.suggest else ""
    return f"I couldn't read '{q}' as a date ({hit.unclear or 'it is not in a form I know'}).{offer} " \
           f"Type the date like `2024-05-01`."


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


def _month_end(year: int, month: int, today: date) -> date:
    """The last day of a month (today while it is the current month)."""
    if (year, month) == (today.year, today.month):
        return today
    return date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)


def _month_hit(year: int, month: int, start: int, end: int, text: str, today: date, how: str) -> _DateHit:
    """A month of a year: its last day, or out of range."""
    if year < 1:
        return _DateHit(start, end, text, None, RANK_ABSOLUTE, how, beyond="past")
    if year > 9998:
        return _DateHit(start, end, text, None, RANK_ABSOLUTE, how, beyond="future")
    return _DateHit(start, end, text, _month_end(year, month, today), RANK_ABSOLUTE, how)


def _find_iso(low: str, today: date) -> Iterable[_DateHit]:
    """2024-05-01, 2024/05/01, 2024.05.01 and compact 20240501."""
    for m in re.finditer(rf"(?<![\w.$/+-])(\d{{4}})([-/.])(\d{{1,2}})\2(\d{{1,2}}){_DATE_END}", low):
        yield _make_date(int(m.group(1)), int(m.group(3)), int(m.group(4)), m, "ISO date")
    for m in re.finditer(rf"(?<![\w$.,+-])((?:19|20)\d{{2}})(\d{{2}})(\d{{2}})(?![\w]|[.,]\d){_NOT_QUANTITY}", low):
        month, day = int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 or 1 <= day <= 31:  # "20241301" is a date typed wrong; "20000000" a number
            yield _make_date(int(m.group(1)), month, day, m, "compact date")


def _find_numeric(low: str, today: date) -> Iterable[_DateHit]:
    """05/01/2024 (US order), 15/03/2024 (day first when unambiguous), 5-1-24."""
    pattern = rf"(?<![\w.$/+-])(\d{{1,2}})([-/.])(\d{{1,2}})\2(\d{{4}}|\d{{2}}){_DATE_END}"
    for m in re.finditer(pattern, low):
        first, second, third = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if len(m.group(4)) == 2 and first > 12:
            yield _two_digit_year(m, first, second, third, today)
            continue
        month, day = (second, first) if first > 12 and second <= 12 else (first, second)
        how = "day-first date" if first > 12 and second <= 12 else "US date"
        yield _make_date(_year(m.group(4), today), month, day, m, how)


def _two_digit_year(m: re.Match[str], first: int, second: int, third: int, today: date) -> _DateHit:
    """'24-05-01': day-month-year (2001-05-24) or year-month-day (2024-05-01)?"""
    day_first = _make_date(_year(f"{third:02d}", today), second, first, m, "day-first date")
    year_first = _make_date(_year(f"{first:02d}", today), second, third, m, "year-first date")
    if first > 31 or day_first.value is None:
        return year_first if year_first.value is not None or first > 31 else day_first
    if year_first.value is None or year_first.value == day_first.value:
        return day_first
    return _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "ambiguous date", ask="ambiguous",
                    options=(day_first.value, year_first.value))


def _find_year_month(low: str, today: date) -> Iterable[_DateHit]:
    """2024-05, 2024/05 and 05/2024: a month of a year, like 'May 2024' ('2024-25' is a season)."""
    patterns = (
        (rf"(?<![\w.$/+-])(\d{{4}})[-/](\d{{1,2}}){_DATE_END}", 1, 2),
        (rf"(?<![\w.$/+-])(\d{{1,2}})/(\d{{4}}){_DATE_END}", 2, 1),
    )
    for pattern, year_group, month_group in patterns:
        for m in re.finditer(pattern, low):
            year, month = int(m.group(year_group)), int(m.group(month_group))
            if 1 <= month <= 12:
                yield _month_hit(year, month, m.start(), m.end(), m.group(0), today, "month and year")
                low = blank(low, m.start(), m.end())
            elif month != (year + 1) % 100:  # "2024-13" is no month; "2024-25" is a season
                yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "month and year",
                               error=f"there is no month {month}")


def _find_named(low: str, today: date) -> Iterable[_DateHit]:
    """Month names with a year: 'March 15, 2024', '15 March 2024', 'Dec 2023'."""
    patterns = (
        (rf"\b{_MONTH}\s*(\d{{1,2}}){_ORD}(?:\s*,\s*|\s+|-)(?:(?:in|of)\s+)?(\d{{4}})\b", "md"),
        (rf"\b(\d{{1,2}}){_ORD}(?:\s+of)?[\s-]+{_MONTH},?[\s-]+(?:(?:in|of)\s+)?(\d{{4}})\b", "dm"),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, low):
            if order == "md":
                month, day, year = _month(m.group(1)), int(m.group(2)), int(m.group(3))
            else:
                day, month, year = int(m.group(1)), _month(m.group(2)), int(m.group(3))
            yield _make_date(year, month, day, m, "date")
            low = blank(low, m.start(), m.end())
    # "May 5 2024xyz", "1st May 20244": a year with something stuck to it is not "May 5" of this year.
    glued = (
        rf"\b\d{{1,2}}{_ORD}(?:\s+of)?[\s-]+{_MONTH},?[\s-]+(\d{{4}}[a-z0-9]+)\b",
        rf"\b{_MONTH}\s*(?:\d{{1,2}}{_ORD}(?:\s*,\s*|\s+|-))?(\d{{4}}[a-z0-9]+)\b",
    )
    for pattern in glued:
        for m in re.finditer(pattern, low):
            yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "date", ask="unreadable",
                           unclear="there is something stuck to the year")
            low = blank(low, m.start(), m.end())
    # "end of 2023", "year-end 2023", "2023 year end": December 31st.
    for m in re.finditer(r"\b(?:(?:the\s+)?end\s+of|year[\s-]?end)\s+(\d{4})\b|\b(\d{4})\s+year[\s-]?end\b", low):
        yield _make_date(int(m.group(1) or m.group(2)), 12, 31, m, "year end")
        low = blank(low, m.start(), m.end())
    # Month and year only: the last day of that month (or today if current).
    for m in re.finditer(rf"\b{_MONTH},?\s+(?:of\s+|in\s+)?(\d{{4}})\b", low):
        year, month = int(m.group(2)), _month(m.group(1))
        yield _month_hit(year, month, m.start(), m.end(), m.group(0).strip(), today, "month and year")


def _find_named_no_year(low: str, today: date) -> Iterable[_DateHit]:
    """'July 4th', 'the 4th of July', 'on 15 March': the most recent such day.

    Without a year these collide with option-speak ("10 march calls") and
    "may" the verb, so the day-first form needs an ordinal, "of" or a
    preposition, and "may 5" needs a preposition or a very short message.
    """
    short = len(re.findall(r"\S+", low)) <= 3
    month_day = rf"\b{_MONTH}\s*(\d{{1,2}})({_ORD_WORDS})?\b(?![.,:/]\d){_NOT_QUANTITY}"
    for m in re.finditer(month_day, low):
        if m.group(1) == "may" and not (m.group(3) or short or prev_word(low, m.start()) in _DATE_PREPS):
            continue  # "I may 2x my position"
        hit = _recent_occurrence(m, _month(m.group(1)), int(m.group(2)), today)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    day_month = rf"\b(\d{{1,2}})({_ORD_WORDS})?(\s+of)?\s+{_MONTH}(?![a-z]){_NOT_QUANTITY}"
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
    for m in re.finditer(r"(?<![\w.$/+-])(\d{1,2})/(\d{1,2})(?![\d/%]|\.\d)", low):
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


# --------------------------------------------------------------------------
# Relative dates
# --------------------------------------------------------------------------

_UNIT_DAYS = {"day": 1, "week": 7, "wk": 7, "fortnight": 14}
_UNIT_MONTHS = {"month": 1, "mo": 1, "quarter": 3, "year": 12, "yr": 12, "decade": 120, "century": 1200}
_UNIT = r"(days?|weeks?|wks?|fortnights?|months?|mos?|quarters?|years?|yrs?|decades?|century|centuries)"
_PAST = r"ago|back|earlier|before\s+today|in\s+the\s+past"
_FUTURE = r"from\s+now|from\s+today|later|hence|in\s+the\s+future"
_AMOUNT_DIGITS = re.compile(r"(?<!\S)([-+]?(?:\d[\d,._']*)?\d(?:e[-+]?\d+)?)\s+$")
_AMOUNT_WORDS = re.compile(rf"(?<![\w-])((?:(?:{_NUMBER_WORD})[\s-]+)+)$")
# Numbers this large are all "too far" in any unit; capping keeps the arithmetic small.
_HUGE = 10**15


@dataclass
class _Amount:
    start: int  # in the window it was read from
    value: int | None
    why: str | None = None  # when value is None: why the number can't be used


def _find_relative(low: str, today: date) -> Iterable[_DateHit]:
    """yesterday, N days ago, last week/month/year, tomorrow, next week, in N days."""
    simple: tuple[tuple[str, Callable[[], date]], ...] = (
        (r"\b(?:the\s+)?day\s+before\s+yesterday\b", lambda: today - timedelta(days=2)),
        (r"\b(?:yesterday|yday|yest)\b(?:'s)?", lambda: today - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+week(?:'s)?\b", lambda: _last_week_friday(today)),
        (r"\b(?:last|previous|prior)\s+month(?:'s)?\b", lambda: today.replace(day=1) - timedelta(days=1)),
        (r"\b(?:last|previous|prior)\s+year(?:'s)?\b", lambda: date(today.year - 1, 12, 31)),
        (r"\b(?:the\s+)?(?:day\s+after\s+tomorrow|overmorrow)\b", lambda: today + timedelta(days=2)),
        (r"\b(?:tomorrow|tmrw|tmr|tomorow)\b", lambda: today + timedelta(days=1)),
        (r"\bnext\s+week\b", lambda: today + timedelta(days=7)),
        (r"\bnext\s+month\b", lambda: _shift_months(today, 1)),
        (r"\bnext\s+quarter\b", lambda: _shift_months(today, 3)),
        (r"\bnext\s+year\b", lambda: _shift_months(today, 12)),
        (r"\bnext\s+decade\b", lambda: _shift_months(today, 120)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?week\b",
         lambda: today - timedelta(days=today.weekday()) + timedelta(days=4)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?month\b",
         lambda: _shift_months(today.replace(day=1), 1) - timedelta(days=1)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?quarter\b",
         lambda: _shift_months(today.replace(day=1), 3 - (today.month - 1) % 3) - timedelta(days=1)),
        (r"\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?year\b",
         lambda: date(today.year, 12, 31)),
    )
    for pattern, compute in simple:
        for m in re.finditer(pattern, low):
            yield _DateHit(m.start(), m.end(), m.group(0).strip(), compute(), RANK_RELATIVE, "relative date")
            low = blank(low, m.start(), m.end())
    pattern = rf"\b(?:(trading|business|market)\s+)?{_UNIT}\b(?:\s+({_PAST}|{_FUTURE})\b)?"
    for m in re.finditer(pattern, low):
        hit = _counted(low, m, today)
        if hit:
            yield hit


def _counted(low: str, m: re.Match[str], today: date) -> _DateHit | None:
    """'3 days ago', 'in 3 days', '3 days from now', 'years ago' (no number: asked back)."""
    direction = m.group(3)
    window_start = max(0, m.start() - 80)
    window = low[window_start : m.start()]
    amount = _read_amount(window)
    if direction is None:
        # Only "in 3 days" is a date; "50 day MA", "over the past 3 months" are not.
        if amount is None:
            return None
        before = re.search(r"\bin\s+$", window[: amount.start])
        if before is None:
            return None
        start = window_start + before.start()
        if _measures_a_move(low, start):
            return None  # "up 20% in 3 days"
        sign = 1
    else:
        sign = -1 if re.match(_PAST, direction) else 1
        start = window_start + amount.start if amount else m.start()
    text = low[start : m.end()]
    if amount is None:
        return _DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date without a number",
                        ask="vague", vague=True)
    if amount.value is None:
        return _DateHit(start, m.end(), text, None, RANK_RELATIVE, "relative date", ask="unreadable",
                        unclear=amount.why)
    unit = _singular(m.group(2))
    trading = bool(m.group(1)) and unit == "day"
    value, beyond = _offset(today, amount.value, unit, sign, trading)
    return _DateHit(start, m.end(), text, value, RANK_RELATIVE, "relative date", beyond=beyond)


def _read_amount(window: str) -> _Amount | None:
    """The count right before a unit: '3', '1,000', '1e9', 'twenty-one', 'a couple of'."""
    m = _AMOUNT_DIGITS.search(window)
    if m:
        value, why = _read_number(m.group(1))
        return _Amount(m.start(1), value, why)
    m = _AMOUNT_WORDS.search(window)
    if m:
        value = _words_value(re.split(r"[\s-]+", m.group(1).strip()))
        if value is not None:
            return _Amount(m.start(1), value)
    last = re.search(r"(\S+)\s+$", window)
    if last and re.search(r"\d", last.group(1)):  # "1,5", ".5", "1e9x": a number, but not one we can use
        return _Amount(last.start(1), None, f"I can't read '{_quote(last.group(1), 20)}' as a number")
    return None


def _read_number(token: str) -> tuple[int | None, str | None]:
    """A count typed in digits, or why it can't be one."""
    if token.startswith("-"):
        return None, "the number can't be negative"
    digits = token.lstrip("+")
    if re.fullmatch(r"\d{1,3}(?:([,_'])\d{3})(?:\1\d{3})*", digits):
        digits = re.sub(r"[,_']", "", digits)  # "1,000"
    if re.fullmatch(r"\d+", digits):
        return (int(digits) if len(digits) <= 15 else _HUGE), None
    try:
        number = float(digits)
    except ValueError:
        return None, f"I can't read '{_quote(token, 20)}' as a number"
    if math.isinf(number) or number >= _HUGE:
        return _HUGE, None  # "1e9 days ago": far, whatever the unit
    if not number.is_integer():
        return None, f"'{_quote(token, 20)}' isn't a whole number"
    return int(number), None


def _words_value(words: list[str]) -> int | None:
    """'twenty one' -> 21, 'a couple of' -> 2, 'ten thousand' -> 10000, 'a' -> 1."""
    total = current = 0
    article = counted = False
    for word in words:
        if word in ("and", "of", ""):
            continue
        if word in ("a", "an"):
            if not counted and current == 0:
                current, article = 1, True
            continue
        counted = True
        if word in _SMALL_NUMBERS:
            current = (0 if article else current) + _SMALL_NUMBERS[word]
        elif word in _MULTIPLIERS:
            current = max(current, 1) * _MULTIPLIERS[word]
        elif word in _LARGE_NUMBERS:
            total += max(current, 1) * _LARGE_NUMBERS[word]
            current = 0
        article = False
    if not counted and not article:
        return None
    return total + current


def _singular(unit: str) -> str:
    if unit == "centuries":
        return "century"
    return unit[:-1] if unit.endswith("s") else unit


def _measures_a_move(low: str, start: int) -> bool:
    """Is 'in N days' the span of a move ('up 20% in 3 days', 'doubled in 2 years')?"""
    before = low[max(0, start - 40) : start]
    words = re.findall(r"[a-z%']+|%", before)[-3:]
    return "%" in before or any(w in _MOVE_WORDS for w in words)


def _offset(today: date, n: int, unit: str, sign: int, trading: bool) -> tuple[date | None, Beyond | None]:
    """``today`` moved by ``n`` units (sign -1: back), or which side of the calendar it falls off."""
    off: Beyond = "past" if sign < 0 else "future"
    if unit in _UNIT_DAYS:
        if trading and sign < 0:
            return _trading_days_back(today, n)
        days = n * _UNIT_DAYS[unit]
        room = (today - date.min).days if sign < 0 else (date.max - today).days
        if days > room:
            return None, off
        return today + timedelta(days=sign * days), None
    months = n * _UNIT_MONTHS[unit]
    index = today.year * 12 + today.month - 1 + sign * months
    if not 12 <= index < 9999 * 12:  # years 1 to 9998
        return None, off
    return _shift_months(today, sign * months), None


def _trading_days_back(today: date, n: int) -> tuple[date | None, Beyond | None]:
    if n > (today - MIN_DATE).days:  # more sessions than calendar days since MIN_DATE
        return None, "past"
    d = today
    for _ in range(n):
        d = previous_trading_day(d)
        if d < MIN_DATE:
            return None, "past"
    return d, None


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


def _find_year(low: str, today: date) -> Iterable[_DateHit]:
    """A year alone: 'in 2022', 'during 2008', 'year 3000', 'NVDA 2099'.

    Only after a preposition, or as the first or last word of a message of up
    to three words; "the 2008 crash", "Q3 2024", "FY 2025" are not dates.
    """
    words = [w.strip(".,!?;:()\"'") for w in re.findall(r"\S+", low)]
    edge_words = {words[0], words[-1]} if 0 < len(words) <= 3 else set()
    for m in re.finditer(rf"(?<![\w.$/:,'-])(\d{{4}})(?![\w%]|[.,/:-]\w){_NOT_QUANTITY}", low):
        year = int(m.group(1))
        before = re.search(r"(\S+)\s{1,3}$", low[max(0, m.start() - 40) : m.start()])
        previous = before.group(1).strip("(\"'") if before else ""
        if _PERIOD_LABEL.fullmatch(previous):
            continue
        preposition = previous in _YEAR_PREPS
        edge = m.group(1) in edge_words and 1000 <= year <= 2999 and previous not in _SPAN_WORDS
        if not (preposition or edge):
            continue
        if previous == "for" and year > today.year:
            continue  # "buy NVDA for 2030": a horizon, not the day to analyze
        start = m.start() - (len(before.group(0)) if before and preposition else 0)
        text = low[start : m.end()]
        if year == today.year:
            yield _DateHit(start, m.end(), text, today, RANK_NOW, "this year", year_only=year)
        elif year > today.year:
            yield _DateHit(start, m.end(), text, date(year, 1, 1), RANK_ABSOLUTE, "year", year_only=year)
        elif year < MIN_DATE.year:
            yield _DateHit(start, m.end(), text, None, RANK_ABSOLUTE, "year", beyond="past", year_only=year)
        else:
            yield _DateHit(start, m.end(), text, None, RANK_ABSOLUTE, "year", ask="year", year_only=year)


def _find_decade(low: str, today: date) -> Iterable[_DateHit]:
    """'in the 1990s', 'during the 2010s': a whole decade, so which day is asked back.

    Only four-digit decades after a preposition ("NVDA in the 140s" is a price)."""
    for m in re.finditer(r"\b(in|during|of)\s+(?:the\s+)?((?:19|20)\d0)'?s\b", low):
        first = int(m.group(2))
        if first + 9 < MIN_DATE.year:
            yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "decade", beyond="past")
        elif first > today.year:
            yield _DateHit(m.start(), m.end(), m.group(0), date(first, 1, 1), RANK_ABSOLUTE, "decade")
        else:
            yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "decade", ask="vague", vague=True)


def _find_now(low: str, today: date) -> Iterable[_DateHit]:
    """'today' is an explicit choice; 'now'/'currently' is just filler."""
    for m in re.finditer(r"(?<!\$)\b(?:today|todays|this\s+(?:morning|afternoon|evening)|tonight)\b", low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_TODAY, "today")
    filler = r"(?<!\$)\b(?:right\s+now|now|currently|at\s+the\s+moment|this\s+week|this\s+month|this\s+year|eod)\b"
    for m in re.finditer(filler, low):
        yield _DateHit(m.start(), m.end(), m.group(0).strip(), today, RANK_NOW, "now")


# Digits joined by two or more date separators that no finder above could read.
_GARBLED = re.compile(r"\d[-/.]+\d+[-/.]+\d")
_SIGNED_COMPACT = re.compile(r"(?<!\S)[-+]((?:19|20)\d{6})(?![\w.,])")
_SPACED = re.compile(r"(?<![\w.$])((?:19|20)\d{2})\s+(\d{1,2})\s+(\d{1,2})(?![\w.])")
_ISO_INSIDE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")


def _find_garbled(low: str, today: date) -> Iterable[_DateHit]:
    """What looks like a date but is none of the above: '2024-05-01-01', '-2024-01-01',
    '2024-05-01xyz', '10000-01-01', '2024 05 01'. Asked back, never dropped for today."""
    for m in re.finditer(r"\S+", low):
        token = m.group(0)
        if token.startswith("$") or not _GARBLED.search(token[:64]):
            continue  # a price, or no date shape
        yield _DateHit(m.start(), m.end(), token, None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear=_why_garbled(token), suggest=_date_inside(token))
    for m in _SIGNED_COMPACT.finditer(low):
        yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear="a date can't have a sign in front", suggest=_date_inside(
                           f"{m.group(1)[:4]}-{m.group(1)[4:6]}-{m.group(1)[6:]}"))
    for m in _SPACED.finditer(low):
        suggest = _date_inside("-".join(m.groups()))
        yield _DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "unreadable date", ask="unreadable",
                       unclear="the parts are separated by spaces", suggest=suggest)


def _why_garbled(token: str) -> str:
    core = token.strip("()[]{}<>\"'.,;:!?*")
    if core[:1] in ("-", "+"):
        return "a date can't have a sign in front"
    if re.search(r"[^\W\d_]", core):
        return "there are letters stuck to it"
    parts = [p for p in re.split(r"[-/.]+", core) if p]
    if len(parts) > 3:
        return "it has more than three parts"
    if any(len(p) > 4 for p in parts):
        return "a part of it has too many digits"
    return "it is not in a form I know"


def _date_inside(token: str) -> str | None:
    """A real YYYY-MM-DD inside a garbled token, to offer back."""
    m = _ISO_INSIDE.search(token[:64])
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
    except ValueError:
        return None


_DATE_FINDERS = (
    _find_iso,
    _find_numeric,
    _find_year_month,
    _find_named,
    _find_named_no_year,
    _find_numeric_no_year,
    _find_relative,
    _find_weekday,
    _find_decade,
    _find_year,
    _find_now,
    _find_garbled,
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
