"""Finders of dates written out: ISO and numeric dates, month names, a month of a year, a year or a
decade alone. Each yields :class:`DateHit` s in the lower-cased message, with what they mean
(:mod:`graph.request.dates` runs them in order; :mod:`graph.request.resolve_dates` makes the days)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .date_hits import RANK_ABSOLUTE, DateHit, found
from .date_meanings import THIS_YEAR, Meaning, Year, inherited
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


def written_year(text: str) -> Year:
    """A year as written: four digits as they are, two in the most recent century ('24' is 2024)."""
    return Year(int(text), "short" if len(text) == 2 else "said")


def _on(year: Year, month: int, day: int, m: re.Match[str], how: str) -> DateHit:
    """A day of a year (an impossible one is said so by the resolver)."""
    return found(m, Meaning("date", year=year, month=month, day=day), how)


def _month(text: str) -> int:
    return MONTHS[text[:3].lower()]


def find_iso(low: str) -> Iterable[DateHit]:
    """2024-05-01, 2024/05/01, 2024.05.01 and compact 20240501."""
    for m in re.finditer(rf"(?<![\w.$/+-])(\d{{4}})([-/.])(\d{{1,2}})\2(\d{{1,2}}){DATE_END}", low):
        yield _on(Year(int(m.group(1))), int(m.group(3)), int(m.group(4)), m, "ISO date")
    for m in re.finditer(rf"(?<![\w$.,+-])((?:19|20)\d{{2}})(\d{{2}})(\d{{2}})(?![\w]|[.,]\d){NOT_QUANTITY}", low):
        month, day = int(m.group(2)), int(m.group(3))
        if 1 <= month <= 12 or 1 <= day <= 31:  # "20241301" is a date typed wrong; "20000000" a number
            yield _on(Year(int(m.group(1))), month, day, m, "compact date")


def find_numeric(low: str) -> Iterable[DateHit]:
    """05/01/2024 (US order), 15/03/2024 (day first when unambiguous), 5-1-24."""
    pattern = rf"(?<![\w.$/+-])(\d{{1,2}})([-/.])(\d{{1,2}})\2(\d{{4}}|\d{{2}}){DATE_END}"
    for m in re.finditer(pattern, low):
        first, second, third = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if len(m.group(4)) == 2 and first > 12:  # "24-05-01": 2001-05-24 or 2024-05-01?
            yield found(m, Meaning("two_readings", numbers=(first, second, third)), "date")
            continue
        month, day = (second, first) if first > 12 and second <= 12 else (first, second)
        how = "day-first date" if first > 12 and second <= 12 else "US date"
        yield _on(written_year(m.group(4)), month, day, m, how)


def find_year_month(low: str) -> Iterable[DateHit]:
    """2024-05, 2024/05 and 05/2024: a month of a year, like 'May 2024' ('2024-25' is a season)."""
    patterns = (
        (rf"(?<![\w.$/+-])(\d{{4}})[-/](\d{{1,2}}){DATE_END}", 1, 2),
        (rf"(?<![\w.$/+-])(\d{{1,2}})/(\d{{4}}){DATE_END}", 2, 1),
    )
    for pattern, year_group, month_group in patterns:
        for m in re.finditer(pattern, low):
            year, month = int(m.group(year_group)), int(m.group(month_group))
            if 1 <= month <= 12:
                yield found(m, Meaning("month", year=Year(year), month=month), "month and year")
                low = blank(low, m.start(), m.end())
            elif month != (year + 1) % 100:  # "2024-13" is no month; "2024-25" is a season
                yield found(m, Meaning("impossible", reason=f"there is no month {month}"), "month and year")


def find_named(low: str) -> Iterable[DateHit]:
    """Month names with a year: 'March 15, 2024', '15 March 2024', 'Dec 2023'."""
    years: list[tuple[int, Year]] = []  # (end, year) of each date said with its year, for the ones after it
    # "early 2024", "mid-March 2024", "the start of 2024": a stretch of days, so which one is asked.
    part_year = rf"\b{_VAGUE_PART}[\s-]+(?:{MONTH},?\s+(?:of\s+)?)?(\d{{4}})\b{NOT_QUANTITY}"
    for m in re.finditer(part_year, low):
        year, month = Year(int(m.group(3))), _month(m.group(2)) if m.group(2) else 1
        years.append((m.end(), year))
        yield found(m, Meaning("part", year=year, month=month), "period")
        low = blank(low, m.start(), m.end())
    patterns = (
        (rf"\b{MONTH}\s*(\d{{1,2}}){ORD}(?:\s*,\s*|\s+|-)(?:(?:in|of)\s+)?(\d{{4}})\b", "md"),
        (rf"\b(\d{{1,2}}){ORD}(?:\s+of)?[\s-]+{MONTH},?[\s-]+(?:(?:in|of)\s+)?(\d{{4}})\b", "dm"),
    )
    for pattern, order in patterns:
        for m in re.finditer(pattern, low):
            if order == "md":
                month, day = _month(m.group(1)), int(m.group(2))
            else:
                day, month = int(m.group(1)), _month(m.group(2))
            years.append((m.end(), Year(int(m.group(3)))))
            yield _on(Year(int(m.group(3))), month, day, m, "date")
            low = blank(low, m.start(), m.end())
    # "May 5 2024xyz", "1st May 20244": a year with something stuck to it is not "May 5" of this year.
    glued = (
        rf"\b\d{{1,2}}{ORD}(?:\s+of)?[\s-]+{MONTH},?[\s-]+(\d{{4}}[a-z0-9]+)\b",
        rf"\b{MONTH}\s*(?:\d{{1,2}}{ORD}(?:\s*,\s*|\s+|-))?(\d{{4}}[a-z0-9]+)\b",
    )
    for pattern in glued:
        for m in re.finditer(pattern, low):
            yield found(m, Meaning("ask", ask="unreadable", reason="there is something stuck to the year"), "date")
            low = blank(low, m.start(), m.end())
    # "end of 2023", "year-end 2023", "2023 year end": December 31st.
    for m in re.finditer(r"\b(?:(?:the\s+)?end\s+of|year[\s-]?end)\s+(\d{4})\b|\b(\d{4})\s+year[\s-]?end\b", low):
        year = Year(int(m.group(1) or m.group(2)))
        years.append((m.end(), year))
        yield _on(year, 12, 31, m, "year end")
        low = blank(low, m.start(), m.end())
    # Month and year only: the last day of that month (or today if current).
    for m in re.finditer(rf"\b{MONTH},?\s+(?:of\s+|in\s+)?(\d{{4}})\b", low):
        year, month = Year(int(m.group(2))), _month(m.group(1))
        years.append((m.end(), year))
        yield found(m, Meaning("month", year=year, month=month), "month and year")
        low = blank(low, m.start(), m.end())
    if years:  # "May 1, 2024 or June 3": the dates without a year after one with it are in its year
        yield from find_named_no_year(low, sorted(years, key=lambda said: said[0]))


def find_named_no_year(low: str, years: Sequence[tuple[int, Year]] = ()) -> Iterable[DateHit]:
    """'July 4th', 'the 4th of July', 'on 15 March': the most recent such day (or, after a date said with
    its year, that year's); then holidays and months alone (:func:`_find_holidays`, :func:`_find_months`).

    Without a year these collide with option-speak ("10 march calls") and
    "may" the verb, so the day-first form needs an ordinal, "of" or a
    preposition, and "may 5" needs a preposition or a very short message.
    """
    short = len(re.findall(r"\S+", low)) <= 3
    # "early March", "mid-Dec", "the start of June": which day is asked; "the end of March" is its last day.
    for part in _find_month_parts(low, years):
        yield part
        low = blank(low, part.start, part.end)
    month_day = rf"\b{MONTH}\s*(\d{{1,2}})({ORD_WORDS})?\b(?![.,:/]\d){NOT_QUANTITY}"
    for m in re.finditer(month_day, low):
        if m.group(1) == "may" and not (m.group(3) or short or prev_word(low, m.start()) in DATE_PREPS):
            continue  # "I may 2x my position"
        hit = _day_hit(m, _month(m.group(1)), int(m.group(2)), years)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    day_month = rf"\b(\d{{1,2}})({ORD_WORDS})?(\s+of)?\s+{MONTH}(?![a-z]){NOT_QUANTITY}"
    for m in re.finditer(day_month, low):
        marked = m.group(2) or m.group(3) or prev_word(low, m.start()) in DATE_PREPS
        if not marked:
            continue
        hit = _day_hit(m, _month(m.group(4)), int(m.group(1)), years)
        if hit:
            yield hit
            low = blank(low, m.start(), m.end())
    for finder in (_find_holidays, _find_months):
        for hit in finder(low, years, short):
            yield hit
            low = blank(low, hit.start, hit.end)


def find_numeric_no_year(low: str) -> Iterable[DateHit]:
    """'on 5/1': only after a preposition, or in very short messages ('NVDA 5/1')."""
    short = len(re.findall(r"\S+", low)) <= 3
    for m in re.finditer(r"(?<![\w.$/+-])(\d{1,2})/(\d{1,2})(?![\d/%]|\.\d)", low):
        if not (short or prev_word(low, m.start()) in DATE_PREPS):
            continue
        month, day = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            yield found(m, Meaning("recent_day", month=month, day=day), "date without year")


def find_year(low: str) -> Iterable[DateHit]:
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
        start = m.start() - (len(before.group(0)) if before and preposition else 0)
        # "buy NVDA for 2030": a horizon while the year is ahead, not the day to analyze
        meaning = Meaning("year", year=Year(year), mode="for" if previous == "for" else "")
        yield DateHit(start, m.end(), low[start : m.end()], None, RANK_ABSOLUTE, "year", meaning=meaning)


def find_decade(low: str) -> Iterable[DateHit]:
    """'in the 1990s', 'during the 2010s': a whole decade, so which day is asked back.

    Only four-digit decades after a preposition ("NVDA in the 140s" is a price)."""
    for m in re.finditer(r"\b(in|during|of)\s+(?:the\s+)?((?:19|20)\d0)'?s\b", low):
        yield found(m, Meaning("decade", n=int(m.group(2))), "decade")


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


def _day_hit(m: re.Match[str], month: int, day: int, years: Sequence[tuple[int, Year]]) -> DateHit | None:
    """A day without a year: in the year of a date said before it, else the most recent such day (none on
    day 0)."""
    year = inherited(years, m.start())
    if day < 1:
        return None
    if year is not None:
        return _on(year, month, day, m, "date")
    return found(m, Meaning("recent_day", month=month, day=day), "date without year")


def _month_reads(word: str, low: str, start: int, short: bool, marked: bool = False) -> bool:
    """Is this month word a month here? ``marked``: a word around it already says so ("early", "last"),
    which is enough for "march" and "jan" but not for "may" ("early may", "this may")."""
    word, before = word.rstrip("."), prev_word(low, start)
    if word == "mar" or re.search(r"\d[\s,]*$", low[:start]) or before in SPAN_WORDS:
        return False  # "10 march calls" is option-speak; "since March" starts a span
    if word == "may" or (word in _WORDY_MONTHS and not marked):
        return before in _MONTH_PREPS
    return marked or short or before in _MONTH_PREPS or before in _MONTH_JOINS


def _month_year(m: re.Match[str], low: str, years: Sequence[tuple[int, Year]]) -> Year:
    """The year of a month said alone: that of a date said before it, else the most recent such month's
    (the coming one when the message speaks of what is to come: refused as ahead)."""
    return inherited(years, m.start()) or Year(how="coming" if speaks_of_future(low[: m.start()]) else "recent")


def _find_month_parts(low: str, years: Sequence[tuple[int, Year]]) -> Iterable[DateHit]:
    """'early March', 'mid-Dec', 'the start of June', 'the start of the year' -> asked back; 'the end of
    March' -> its last day (refused while ahead, as 'the end of the month')."""
    for m in re.finditer(rf"\b{_VAGUE_PART}[\s-]+(?:of\s+)?{_BARE_MONTH}(?![\s-]*\d)", low):
        safe = not m.group(1).startswith(("early", "mid", "late"))  # "start of may" is May; "early may" may not be
        if _month_reads(m.group(2), low, m.start(), short=False, marked=True) or (safe and m.group(2) == "may"):
            yield found(m, Meaning("part", year=_month_year(m, low, years), month=_month(m.group(2))), "period")
    for m in re.finditer(rf"\b(?:the\s+)?end\s+of\s+{_BARE_MONTH}(?![\s-]*\d)", low):
        if m.group(1).rstrip(".") != "mar":
            meaning = Meaning("month_end", year=_month_year(m, low, years), month=_month(m.group(1)))
            yield found(m, meaning, "month end")
    year_part = (r"\b(?:(?:the\s+)?(?:start|beginning)\s+of|early|earlier)\s+(?:in\s+)?(?:the\s+|this\s+)"
                 r"(year|month)\b")
    for m in re.finditer(year_part, low):  # this year's January, or this month
        yield found(m, Meaning("part", year=THIS_YEAR, month=1) if m.group(1) == "year" else Meaning("part"), "period")
    for m in re.finditer(r"\b(?:the\s+)?(?:start|beginning)\s+of\s+(?:last|the\s+previous|the\s+prior)\s+year\b", low):
        yield found(m, Meaning("part", year=Year(-1, "shift"), month=1), "period")


def _find_holidays(low: str, years: Sequence[tuple[int, Year]], short: bool) -> Iterable[DateHit]:
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
                yield _on(Year(int(said_year)), month, day, m, "holiday")
            elif mode == "this":
                yield _on(THIS_YEAR, month, day, m, "holiday")
            elif mode in ("next", "coming"):
                yield found(m, Meaning("recent_day", month=month, day=day, mode="next"), "holiday")
            elif (year := inherited(years, m.start())) is not None:
                yield _on(year, month, day, m, "holiday")
            else:  # the most recent one ("last Christmas" on Dec 25: a year ago)
                meaning = Meaning("recent_day", month=month, day=day, mode="last" if mode else "")
                yield found(m, meaning, "date without year")
            low = blank(low, m.start(), m.end())


def _last_may(m: re.Match[str], low: str) -> bool:
    """'last May' is the month ('should I have bought NVDA last May?'); 'the last may be', 'this may' are not."""
    verb = re.match(r"\s+(?:be|have|not|well|also|still|never|just|only|even|help|hurt|go|come)\b", low[m.end():])
    return (m.group(1) in ("last", "past", "previous") and not verb
            and prev_word(low, m.start()) not in ("the", "this", "that", "a"))


def _find_months(low: str, years: Sequence[tuple[int, Year]], short: bool) -> Iterable[DateHit]:
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
        if mode == "this":
            yield found(m, Meaning("month", year=THIS_YEAR, month=month), "month")
        elif mode in ("next", "coming"):
            yield found(m, Meaning("month", year=Year(how="next"), month=month), "month")
        elif mode:
            yield found(m, Meaning("past_month", month=month), "month")
        else:
            yield found(m, Meaning("month", year=_month_year(m, low, years), month=month), "month")
