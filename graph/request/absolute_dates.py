"""Finders of dates written out: ISO and numeric dates, month names, a month of a year, a year or a
decade alone. Each yields :class:`DateHit` s in the lower-cased message (:mod:`graph.request.dates`
runs them in order)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from .date_hits import MIN_DATE, RANK_ABSOLUTE, RANK_NOW, DateHit
from .date_words import (
    DATE_END,
    DATE_PREPS,
    MONTH,
    MONTHS,
    NOT_QUANTITY,
    ORD,
    ORD_WORDS,
    PERIOD_LABEL,
    SPAN_WORDS,
    YEAR_PREPS,
)
from .text import blank, prev_word


def make_date(year: int, month: int, day: int, m: re.Match[str], how: str, rank: int = RANK_ABSOLUTE) -> DateHit:
    """A date hit, or an 'impossible date' hit when the calendar disagrees."""
    text = m.group(0).strip()
    try:
        return DateHit(m.start(), m.end(), text, date(year, month, day), rank, how)
    except ValueError:
        return DateHit(m.start(), m.end(), text, None, rank, how, error=_impossible(year, month, day))


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


def year_of(text: str, today: date) -> int:
    """Four-digit years as written; two-digit years in the most recent century."""
    year = int(text)
    if len(text) == 2:
        year += 2000 if 2000 + year <= today.year else 1900
    return year


def _month(text: str) -> int:
    return MONTHS[text[:3].lower()]


def _month_end(year: int, month: int, today: date) -> date:
    """The last day of a month (today while it is the current month)."""
    if (year, month) == (today.year, today.month):
        return today
    return date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)


def month_hit(year: int, month: int, start: int, end: int, text: str, today: date, how: str) -> DateHit:
    """A month of a year: its last day, or out of range."""
    if year < 1:
        return DateHit(start, end, text, None, RANK_ABSOLUTE, how, beyond="past")
    if year > 9998:
        return DateHit(start, end, text, None, RANK_ABSOLUTE, how, beyond="future")
    return DateHit(start, end, text, _month_end(year, month, today), RANK_ABSOLUTE, how)


def find_iso(low: str, today: date) -> Iterable[DateHit]:
    """2024-05-01, 2024/05/01, 2024.05.01 and compact 20240501."""
    for m in re.finditer(rf"(?<![\w.$/+-])(\d{{4}})([-/.])(\d{{1,2}})\2(\d{{1,2}}){DATE_END}", low):
        yield make_date(int(m.group(1)), int(m.group(3)), int(m.group(4)), m, "ISO date")
    for m in re.finditer(rf"(?<![\w$.,+-])((?:19|20)\d{{2}})(\d{{2}})(\d{{2}})(?![\w]|[.,]\d){NOT_QUANTITY}", low):
        month, day = int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 or 1 <= day <= 31:  # "20241301" is a date typed wrong; "20000000" a number
            yield make_date(int(m.group(1)), month, day, m, "compact date")


def find_numeric(low: str, today: date) -> Iterable[DateHit]:
    """05/01/2024 (US order), 15/03/2024 (day first when unambiguous), 5-1-24."""
    pattern = rf"(?<![\w.$/+-])(\d{{1,2}})([-/.])(\d{{1,2}})\2(\d{{4}}|\d{{2}}){DATE_END}"
    for m in re.finditer(pattern, low):
        first, second, third = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if len(m.group(4)) == 2 and first > 12:
            yield _two_digit_year(m, first, second, third, today)
            continue
        month, day = (second, first) if first > 12 and second <= 12 else (first, second)
        how = "day-first date" if first > 12 and second <= 12 else "US date"
        yield make_date(year_of(m.group(4), today), month, day, m, how)


def _two_digit_year(m: re.Match[str], first: int, second: int, third: int, today: date) -> DateHit:
    """'24-05-01': day-month-year (2001-05-24) or year-month-day (2024-05-01)?"""
    day_first = make_date(year_of(f"{third:02d}", today), second, first, m, "day-first date")
    year_first = make_date(year_of(f"{first:02d}", today), second, third, m, "year-first date")
    if first > 31 or day_first.value is None:
        return year_first if year_first.value is not None or first > 31 else day_first
    if year_first.value is None or year_first.value == day_first.value:
        return day_first
    return DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "ambiguous date", ask="ambiguous",
                    options=(day_first.value, year_first.value))


def find_year_month(low: str, today: date) -> Iterable[DateHit]:
    """2024-05, 2024/05 and 05/2024: a month of a year, like 'May 2024' ('2024-25' is a season)."""
    patterns = (
        (rf"(?<![\w.$/+-])(\d{{4}})[-/](\d{{1,2}}){DATE_END}", 1, 2),
        (rf"(?<![\w.$/+-])(\d{{1,2}})/(\d{{4}}){DATE_END}", 2, 1),
    )
    for pattern, year_group, month_group in patterns:
        for m in re.finditer(pattern, low):
            year, month = int(m.group(year_group)), int(m.group(month_group))
            if 1 <= month <= 12:
                yield month_hit(year, month, m.start(), m.end(), m.group(0), today, "month and year")
                low = blank(low, m.start(), m.end())
            elif month != (year + 1) % 100:  # "2024-13" is no month; "2024-25" is a season
                yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "month and year",
                               error=f"there is no month {month}")


def find_named(low: str, today: date) -> Iterable[DateHit]:
    """Month names with a year: 'March 15, 2024', '15 March 2024', 'Dec 2023'."""
    years: list[tuple[int, int]] = []  # (end, year) of each date said with its year, for the ones after it
    # "early 2024", "mid-March 2024", "the start of 2024": a stretch of days, so which one is asked.
    part_year = rf"\b{_VAGUE_PART}[\s-]+(?:{MONTH},?\s+(?:of\s+)?)?(\d{{4}})\b{NOT_QUANTITY}"
    for m in re.finditer(part_year, low):
        year, month = int(m.group(3)), _month(m.group(2)) if m.group(2) else 1
        years.append((m.end(), year))
        yield _vague_hit(year, month, m, today)
        low = blank(low, m.start(), m.end())
    patterns = (
        (rf"\b{MONTH}\s*(\d{{1,2}}){ORD}(?:\s*,\s*|\s+|-)(?:(?:in|of)\s+)?(\d{{4}})\b", "md"),
        (rf"\b(\d{{1,2}}){ORD}(?:\s+of)?[\s-]+{MONTH},?[\s-]+(?:(?:in|of)\s+)?(\d{{4}})\b", "dm"),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, low):
            if order == "md":
                month, day, year = _month(m.group(1)), int(m.group(2)), int(m.group(3))
            else:
                day, month, year = int(m.group(1)), _month(m.group(2)), int(m.group(3))
            years.append((m.end(), year))
            yield make_date(year, month, day, m, "date")
            low = blank(low, m.start(), m.end())
    # "May 5 2024xyz", "1st May 20244": a year with something stuck to it is not "May 5" of this year.
    glued = (
        rf"\b\d{{1,2}}{ORD}(?:\s+of)?[\s-]+{MONTH},?[\s-]+(\d{{4}}[a-z0-9]+)\b",
        rf"\b{MONTH}\s*(?:\d{{1,2}}{ORD}(?:\s*,\s*|\s+|-))?(\d{{4}}[a-z0-9]+)\b",
    )
    for pattern in glued:
        for m in re.finditer(pattern, low):
            yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "date", ask="unreadable",
                           unclear="there is something stuck to the year")
            low = blank(low, m.start(), m.end())
    # "end of 2023", "year-end 2023", "2023 year end": December 31st.
    for m in re.finditer(r"\b(?:(?:the\s+)?end\s+of|year[\s-]?end)\s+(\d{4})\b|\b(\d{4})\s+year[\s-]?end\b", low):
        years.append((m.end(), int(m.group(1) or m.group(2))))
        yield make_date(int(m.group(1) or m.group(2)), 12, 31, m, "year end")
        low = blank(low, m.start(), m.end())
    # Month and year only: the last day of that month (or today if current).
    for m in re.finditer(rf"\b{MONTH},?\s+(?:of\s+|in\s+)?(\d{{4}})\b", low):
        year, month = int(m.group(2)), _month(m.group(1))
        years.append((m.end(), year))
        yield month_hit(year, month, m.start(), m.end(), m.group(0).strip(), today, "month and year")
        low = blank(low, m.start(), m.end())
    if years:  # "May 1, 2024 or June 3": the dates without a year after one with it are in its year
        yield from find_named_no_year(low, today, sorted(years))


def find_named_no_year(low: str, today: date, years: Sequence[tuple[int, int]] = ()) -> Iterable[DateHit]:
    """'July 4th', 'the 4th of July', 'on 15 March': the most recent such day (or, after a date said with
    its year, that year's); then holidays and months alone (:func:`_find_holidays`, :func:`_find_months`).

    Without a year these collide with option-speak ("10 march calls") and
    "may" the verb, so the day-first form needs an ordinal, "of" or a
    preposition, and "may 5" needs a preposition or a very short message.
    """
    short = len(re.findall(r"\S+", low)) <= 3
    # "early March", "mid-Dec", "the start of June": which day is asked; "the end of March" is its last day.
    for part in _find_month_parts(low, today, years):
        yield part
        low = blank(low, part.start, part.end)
    month_day = rf"\b{MONTH}\s*(\d{{1,2}})({ORD_WORDS})?\b(?![.,:/]\d){NOT_QUANTITY}"
    for m in re.finditer(month_day, low):
        if m.group(1) == "may" and not (m.group(3) or short or prev_word(low, m.start()) in DATE_PREPS):
            continue  # "I may 2x my position"
        hit = _day_hit(m, _month(m.group(1)), int(m.group(2)), today, years)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    day_month = rf"\b(\d{{1,2}})({ORD_WORDS})?(\s+of)?\s+{MONTH}(?![a-z]){NOT_QUANTITY}"
    for m in re.finditer(day_month, low):
        marked = m.group(2) or m.group(3) or prev_word(low, m.start()) in DATE_PREPS
        if not marked:
            continue
        hit = _day_hit(m, _month(m.group(4)), int(m.group(1)), today, years)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    for finder in (_find_holidays, _find_months):
        for found in finder(low, today, years, short):
            yield found
            low = blank(low, found.start, found.end)


def find_numeric_no_year(low: str, today: date) -> Iterable[DateHit]:
    """'on 5/1': only after a preposition, or in very short messages ('NVDA 5/1')."""
    short = len(re.findall(r"\S+", low)) <= 3
    for m in re.finditer(r"(?<![\w.$/+-])(\d{1,2})/(\d{1,2})(?![\d/%]|\.\d)", low):
        if not (short or prev_word(low, m.start()) in DATE_PREPS):
            continue
        month, day = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            hit = recent_occurrence(m, month, day, today)
            if hit:
                yield hit


def recent_occurrence(m: re.Match[str], month: int, day: int, today: date) -> DateHit | None:
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
            return DateHit(m.start(), m.end(), text, candidate, RANK_ABSOLUTE, "date without year")
    return DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "date", error=_impossible(2024, month, day))


def find_year(low: str, today: date) -> Iterable[DateHit]:
    """A year alone: 'in 2022', 'during 2008', 'year 3000', 'NVDA 2099'.

    Only after a preposition, or as the first or last word of a message of up
    to three words; "the 2008 crash", "Q3 2024", "FY 2025" are not dates.
    """
    words = [w.strip(".,!?;:()\"'") for w in re.findall(r"\S+", low)]
    edge_words = {words[0], words[-1]} if 0 < len(words) <= 3 else set()
    for m in re.finditer(rf"(?<![\w.$/:,'-])(\d{{4}})(?![\w%]|[.,/:-]\w){NOT_QUANTITY}", low):
        year = int(m.group(1))
        before = re.search(r"(\S+)\s{1,3}$", low[max(0, m.start() - 40) : m.start()])
        previous = before.group(1).strip("(\"'") if before else ""
        if PERIOD_LABEL.fullmatch(previous):
            continue
        preposition = previous in YEAR_PREPS
        edge = m.group(1) in edge_words and 1000 <= year <= 2999 and previous not in SPAN_WORDS
        if not (preposition or edge):
            continue
        if previous == "for" and year > today.year:
            continue  # "buy NVDA for 2030": a horizon, not the day to analyze
        start = m.start() - (len(before.group(0)) if before and preposition else 0)
        text = low[start : m.end()]
        if year == today.year:
            yield DateHit(start, m.end(), text, today, RANK_NOW, "this year", year_only=year)
        elif year > today.year:
            yield DateHit(start, m.end(), text, date(year, 1, 1), RANK_ABSOLUTE, "year", year_only=year)
        elif year < MIN_DATE.year:
            yield DateHit(start, m.end(), text, None, RANK_ABSOLUTE, "year", beyond="past", year_only=year)
        else:
            yield DateHit(start, m.end(), text, None, RANK_ABSOLUTE, "year", ask="year", year_only=year)


def find_decade(low: str, today: date) -> Iterable[DateHit]:
    """'in the 1990s', 'during the 2010s': a whole decade, so which day is asked back.

    Only four-digit decades after a preposition ("NVDA in the 140s" is a price)."""
    for m in re.finditer(r"\b(in|during|of)\s+(?:the\s+)?((?:19|20)\d0)'?s\b", low):
        first = int(m.group(2))
        if first + 9 < MIN_DATE.year:
            yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "decade", beyond="past")
        elif first > today.year:
            yield DateHit(m.start(), m.end(), m.group(0), date(first, 1, 1), RANK_ABSOLUTE, "decade")
        else:
            yield DateHit(m.start(), m.end(), m.group(0), None, RANK_ABSOLUTE, "decade", ask="vague", vague=True)


# Months alone. "mar" is not read (Marriott's ticker, and a verb); "may", "march" and "jan" (a verb, a
# noun, a name) only right after "in" / "during" / "throughout", never in a short message or after
# "this" / "last" ("this may hurt", "NVDA march higher", "ask Jan").
_BARE_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|sept|october|november|december"
    r"|jan|feb|apr|jun|jul|aug|sep|oct|nov|dec)\.?"
)
_WORDY_MONTHS = frozenset({"may", "march", "jan"})
_MONTH_PREPS = frozenset({"in", "during", "throughout"})
# "Dec calls", "June expiry", "Oct earnings": an option series or an event, not the month to analyse.
_NOT_MONTH = (r"(?!\s+(?:calls?|puts?|options?|contracts?|expiry|expiration|expirations|opex|strikes?|futures?"
              r"|earnings|cpi|fomc|report|meeting|jobs|payrolls)\b)")
_MONTH_JOINS = frozenset({"or", "and", "vs", "versus"})  # "in March or April": two months (not for "may")
# A month ahead of the current one is last year's ("in December", said in November), unless the message
# speaks of what is to come ("will NVDA rise in December?"): then it is the coming one, refused as ahead.
_FUTURE_CUES = re.compile(r"\b(?:will|won't|should|shall|gonna|going\s+to|expect\w*|plan\w*|upcoming|coming|"
                          r"ahead|forecast\w*|predict\w*|outlook|next(?!\s+to\b)|might)\b|\w'll\b"
                          r"|(?<!\bin\s)(?<!\bduring\s)\bmay\b")
# "should I have bought", "would it have been": the cue word looks back.
_PERFECT = re.compile(r"\b(?:will|won't|should|shall|might|would|could)\s+(?:\w+\s+)?(?:not\s+)?have\s+"
                      r"(?:been|had|bought|sold|held|got|gotten|done|made|taken|seen|known|gone|kept|won|lost|\w+ed)\b")


def speaks_of_future(before: str) -> bool:
    """Do the words before a month or a quarter, in its sentence, speak of what is to come ("will NVDA rise in
    December?"), and not of what would have been ("should I have bought NVDA in March?")? "Should I buy NVDA?
    How did it do in Q3?" asks about the past Q3."""
    clause = re.split(r"[.?!;。？！；]", before)[-1]
    return bool(_FUTURE_CUES.search(clause)) and not _PERFECT.search(clause)


# The beginning or a part of a month or a year: a stretch of days, so which one is asked back.
_VAGUE_PART = r"(early|mid|late|(?:the\s+)?(?:start|beginning)\s+of)"
_HOLIDAYS = (
    (r"new\s+year'?s\s+eve", 12, 31), (r"new\s+year'?s(?:\s+day)?", 1, 1),
    (r"(?:christmas|xmas)\s+eve", 12, 24), (r"(?:christmas|xmas)(?:\s+day)?", 12, 25),
)  # fmt: skip
# "christmas rally", "new year's resolution": a season or a custom, not a day.
_NOT_HOLIDAY = r"(?!'s|\s+(?:rally|rallies|resolutions?|season|shopping|sales?|gifts?|party|parties|tree|effect|bonus))"
# "since Christmas", "before New Year's": one end of a span, as "since 2020" (and as 元旦前).
_HOLIDAY_PREPS = frozenset({"on", "at", "around", "over", "during", "of", "for", "about"})


def _inherited(years: Sequence[tuple[int, int]], start: int) -> int | None:
    """The year of the last date said with one before ``start``: "May 1, 2024 or June 3" is in 2024."""
    before = [year for end, year in years if end <= start]
    return before[-1] if before else None


def _day_hit(m: re.Match[str], month: int, day: int, today: date,
             years: Sequence[tuple[int, int]]) -> DateHit | None:
    """A day without a year: in the year of a date said before it, else the most recent such day."""
    year = _inherited(years, m.start())
    if year is not None and 1 <= month <= 12 and day >= 1:
        return make_date(year, month, day, m, "date")
    return recent_occurrence(m, month, day, today)


def _vague_hit(year: int, month: int, m: re.Match[str], today: date) -> DateHit:
    """Which day of a beginning or part ("early March", "the start of the year") is asked, unless it is all
    ahead or too early (as 年初 / 3月初 in :mod:`graph.request.intl_dates`)."""
    text = m.group(0).strip()
    if not 1 <= year <= 9998 or (year, month) > (today.year, today.month):
        return DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "period",
                        beyond="past" if year < 1 else "future")
    if year < MIN_DATE.year:
        return DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "period", beyond="past")
    return DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "period", ask="vague")


def _month_reads(word: str, low: str, start: int, short: bool, marked: bool = False) -> bool:
    """Is this month word a month here? ``marked``: a word around it already says so ("early", "last"),
    which is enough for "march" and "jan" but not for "may" ("early may", "this may")."""
    word, before = word.rstrip("."), prev_word(low, start)
    if word == "mar" or re.search(r"\d[\s,]*$", low[:start]) or before in SPAN_WORDS:
        return False  # "10 march calls" is option-speak; "since March" starts a span
    if word == "may" or (word in _WORDY_MONTHS and not marked):
        return before in _MONTH_PREPS
    return marked or short or before in _MONTH_PREPS or before in _MONTH_JOINS


def _month_year(month: int, m: re.Match[str], low: str, today: date, years: Sequence[tuple[int, int]]) -> int:
    """The year of a month said alone: that of a date said before it, else the most recent such month's
    (this year's for a month ahead when the message speaks of what is to come)."""
    year = _inherited(years, m.start())
    if year is not None:
        return year
    if speaks_of_future(low[: m.start()]):  # the coming such month: refused as ahead
        return today.year + (month < today.month)
    return today.year if month <= today.month else today.year - 1


def _find_month_parts(low: str, today: date, years: Sequence[tuple[int, int]]) -> Iterable[DateHit]:
    """'early March', 'mid-Dec', 'the start of June', 'the start of the year' -> asked back; 'the end of
    March' -> its last day (refused while ahead, as 'the end of the month')."""
    for m in re.finditer(rf"\b{_VAGUE_PART}[\s-]+(?:of\s+)?{_BARE_MONTH}(?![\s-]*\d)", low):
        safe = not m.group(1).startswith(("early", "mid", "late"))  # "start of may" is May; "early may" may not be
        if _month_reads(m.group(2), low, m.start(), short=False, marked=True) or (safe and m.group(2) == "may"):
            month = _month(m.group(2))
            yield _vague_hit(_month_year(month, m, low, today, years), month, m, today)
    for m in re.finditer(rf"\b(?:the\s+)?end\s+of\s+{_BARE_MONTH}(?![\s-]*\d)", low):
        if m.group(1).rstrip(".") != "mar":
            month = _month(m.group(1))
            year = _month_year(month, m, low, today, years)
            last = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
            yield DateHit(m.start(), m.end(), m.group(0).strip(), last, RANK_ABSOLUTE, "month end")
    year_part = (r"\b(?:(?:the\s+)?(?:start|beginning)\s+of|early|earlier)\s+(?:in\s+)?(?:the\s+|this\s+)"
                 r"(year|month)\b")
    for m in re.finditer(year_part, low):
        yield _vague_hit(today.year, 1 if m.group(1) == "year" else today.month, m, today)
    for m in re.finditer(r"\b(?:the\s+)?(?:start|beginning)\s+of\s+(?:last|the\s+previous|the\s+prior)\s+year\b", low):
        yield _vague_hit(today.year - 1, 1, m, today)


def _find_holidays(low: str, today: date, years: Sequence[tuple[int, int]], short: bool) -> Iterable[DateHit]:
    """'New Year's Day' -> Jan 1, 'Christmas' -> Dec 25 (their eves Dec 31 and Dec 24): the most recent one,
    or that of the year said with it ('Christmas 2024'), or of a date said before it; 'this Christmas'
    is this year's, 'next Christmas' the coming one (refused). Without "day", "eve" or a year, only after
    a preposition or in a very short message ('since Christmas' starts a span; 'Christmas rally' is not
    a day)."""
    for name, month, day in _HOLIDAYS:
        pattern = (rf"\b(?:(\d{{4}})\s+|(last|past|this|next|coming)\s+)?({name}){_NOT_HOLIDAY}"
                   rf"(?:,?\s+(?:of\s+|in\s+)?(\d{{4}})\b)?")
        for m in re.finditer(pattern, low):
            said_year = m.group(1) or m.group(4)
            mode = m.group(2)
            plain = not (said_year or mode) and not re.search(r"\s(?:day|eve)$", m.group(3))
            before = prev_word(low, m.start())
            if before in SPAN_WORDS and not mode:
                continue
            if plain and not (short or before in _HOLIDAY_PREPS):
                continue
            if said_year:
                yield make_date(int(said_year), month, day, m, "holiday")
            elif mode == "this":
                yield make_date(today.year, month, day, m, "holiday")
            elif mode in ("next", "coming"):
                ahead = date(today.year, month, day)
                yield make_date(today.year + (ahead <= today), month, day, m, "holiday")
            else:
                latest = today - timedelta(days=1) if mode else today  # "last Christmas" on Dec 25: a year ago
                year = _inherited(years, m.start())
                hit = (make_date(year, month, day, m, "holiday") if year is not None
                       else recent_occurrence(m, month, day, latest))
                if hit:
                    yield hit
            low = blank(low, m.start(), m.end())


def _last_may(m: re.Match[str], low: str) -> bool:
    """'last May' is the month ('should I have bought NVDA last May?'); 'the last may be', 'this may' are not."""
    verb = re.match(r"\s+(?:be|have|not|well|also|still|never|just|only|even|help|hurt|go|come)\b", low[m.end():])
    return (m.group(1) in ("last", "past", "previous") and not verb
            and prev_word(low, m.start()) not in ("the", "this", "that", "a"))


def _find_months(low: str, today: date, years: Sequence[tuple[int, int]], short: bool) -> Iterable[DateHit]:
    """'in March', 'NVDA December', 'during Dec' -> the last day of the most recent such month (last year's
    December on a November day; today in the current month), as 'Dec 2023' and 'July 4th' together and as
    三月份; 'this March' -> this year's; 'next March' -> the coming one (refused); 'last March' -> last
    year's when March is not yet over this year, else asked (this year's or last year's?)."""
    modes = r"(?:(last|past|previous|this|next|coming)\s+)?"
    for m in re.finditer(rf"\b{modes}{_BARE_MONTH}(?![\s-]*\d|[\w']){_NOT_MONTH}", low):
        mode, word = m.group(1), m.group(2)
        last_may = word == "may" and _last_may(m, low)
        if mode and (word == "may" or (mode == "this" and word == "march")) and not last_may:
            continue  # "this may hurt", "this march higher"
        if not (last_may or _month_reads(word, low, m.start(), short, marked=bool(mode))):
            continue
        month = _month(word)
        text = m.group(0).strip()
        if mode == "this":
            yield month_hit(today.year, month, m.start(), m.end(), text, today, "month")
        elif mode in ("next", "coming"):
            yield month_hit(today.year + (month <= today.month), month, m.start(), m.end(), text, today, "month")
        elif mode:
            if month >= today.month:
                yield month_hit(today.year - 1, month, m.start(), m.end(), text, today, "month")
            else:
                options = (_month_end(today.year, month, today), _month_end(today.year - 1, month, today))
                yield DateHit(m.start(), m.end(), text, None, RANK_ABSOLUTE, "month", ask="ambiguous",
                               options=options)
        else:
            yield month_hit(_month_year(month, m, low, today, years), month, m.start(), m.end(), text, today,
                             "month")
