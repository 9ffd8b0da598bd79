"""Finding the date a chat message asks about.

Dates are found before tickers and blanked out of the text, so "Mar 15" can
never be read as the ticker MAR. Each finder yields hits in the lower-cased
message, each with what the phrase means, never a day (dates written out:
:mod:`graph.request.absolute_dates`; relative to today:
:mod:`graph.request.relative_dates`; other languages':
:mod:`graph.request.intl_dates`; quarters, halves and seasons:
:mod:`graph.request.period_dates`; unreadable ones:
:mod:`graph.request.garbled_dates`; the words they read:
:mod:`graph.request.date_words` and the phrase tables in ``data/``; the
meanings: :mod:`graph.request.date_meanings`). :func:`scan_dates` runs them in
the order of :mod:`graph.request.date_finders` (blanking each hit so later
finders don't see it again), :mod:`graph.request.resolve_dates` turns each
meaning into a day on today's calendar (or why there is none), and
:func:`_choose_date` picks one or explains why none can be used.

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
  days ago" (also "business"/"market" days, 3个交易日前) steps back over the
  sessions of the listing's own exchange (Hong Kong's for 0700.HK; the NYSE's
  for a US listing, or while no ticker is known: see :func:`scan_dates`);
  a plain-calendar phrase ("yesterday", "3 days ago") counts no sessions and is
  the same for every listing; "in N days", "N days from now" and
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
* the trade date is always the last session of the listing's own exchange on
  or before the asked date (the NYSE's for a US listing, Tokyo's for 7203.T;
  worked out by the caller, see :mod:`graph.request.intent`);
* dates said in Chinese, Japanese, Spanish, French or German follow the same rules
  (:mod:`graph.request.intl_dates` lists the few choices of their own, such as 上周五).

The questions back are worded in the asker's language (:mod:`graph.request.messages`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

from ..core.trading_days import last_trading_day
from .date_finders import DATE_FINDERS
from .date_hits import MIN_DATE, RANK_ABSOLUTE, RANK_NOW, RANK_TODAY, DateHit, quoted
from .date_words import DATE_PREPS
from .messages import say
from .resolve_dates import counts_sessions, resolve
from .scripts import blank_cjk, has_cjk
from .text import blank, lower
from .wordlists import load_words

__all__ = ["MIN_DATE", "DateScan", "scan_dates"]


@dataclass
class DateScan:
    """What :func:`scan_dates` found: at most one usable date, or a question."""

    remaining: str  # the message with date phrases blanked out
    value: date | None = None
    explicit: bool = False  # the user named a date (not just "now")
    reason: str = ""
    error: str | None = None  # a clarifying question if the date is unusable
    # A phrase counted trading sessions ("3 trading days ago"): its day depends on the listing's exchange,
    # so a caller that learns the ticker afterwards scans again with its market (see scan_dates).
    counts_sessions: bool = False
    # The date (or the question back) came from a quarter, half or season: see DateHit.period.
    period: bool = False


def scan_dates(msg: str, today: date, shouted: bool = False, language: str = "en",
               market: str = "US") -> DateScan:
    """Find the date ``msg`` asks about, relative to ``today``; questions back are in ``language``.

    ``shouted`` (an all-caps message) lets an upper-case preposition right before a
    date be blanked with it: in "WHAT ABOUT NVDA, ON 05/01/2024" ON is not ON Semi.

    ``market`` (as ``listing_codes.market_of`` gives it) is the exchange whose sessions "N trading
    days ago" counts. Dates are read before tickers, so a first scan counts the NYSE's; when it says
    ``counts_sessions`` and the ticker turns out to list elsewhere, the caller scans again with that
    market (:mod:`graph.request.intent` does). Only the value of a session count differs between the
    two scans: what is blanked, and so the tickers found, is the same.
    """
    hits = _find_all(lower(msg), today)
    remaining = msg
    for hit in hits:
        hit.text = msg[hit.start : hit.end].strip()  # quote it back as typed
    # The sessions counted back (on the NYSE's calendar so far), counted again on the listing's exchange.
    counts = {id(hit) for hit in hits if counts_sessions(hit.meaning) and hit.value is not None and hit.value < today}
    if market != "US":
        hits = [(resolve(hit, today, market) or hit) if id(hit) in counts else hit for hit in hits]
    for hit in hits:
        remaining = blank(remaining, hit.start, hit.end)
        # "on 2024-05-01": the preposition goes with the date (not the ticker ON).
        prep = re.search(r"(?<![\w$])([A-Za-z]+)\s+$", remaining[max(0, hit.start - 12) : hit.start])
        if prep and prep.group(1).lower() in DATE_PREPS and (shouted or prep.group(1).islower()):
            remaining = blank(remaining, hit.start - len(prep.group(0)), hit.start)
    # "buy NVDA before earnings next week?" - a future date that only dates an
    # event is context, not the day to analyze.
    low = lower(msg)
    hits = [h for h in hits if not (_is_future(h, today) and _dates_an_event(low, h.start))]
    scan = _choose_date(hits, remaining, today, language)
    scan.counts_sessions = bool(counts)
    return scan


def _find_all(low: str, today: date) -> list[DateHit]:
    """Every date phrase in ``low``, by the finders of :mod:`.date_finders` in their order, each phrase blanked
    before the next finder reads; what each means on ``today`` is :func:`.resolve_dates.resolve`'s."""
    hits: list[DateHit] = []
    cjk: bool | None = None
    for finder in DATE_FINDERS:
        if not finder.reads_cjk and cjk is None:  # what is left once the finders that read CJK took theirs
            cjk = has_cjk(low)
            low = blank_cjk(low)
        if cjk and not finder.in_cjk_text:
            continue
        for found in finder.find(low):
            hit = resolve(found, today)
            if hit is not None:
                hits.append(hit)
                low = blank(low, hit.start, hit.end)
    return hits


# Words that make a following future date an event's date ("earnings next week").
_EVENT_WORDS = load_words("event_words.txt")


def _dates_an_event(low: str, start: int) -> bool:
    words = re.findall(r"[a-z']+", low[max(0, start - 60) : start])[-4:]
    return any(w in _EVENT_WORDS for w in words)


def _is_future(hit: DateHit, today: date) -> bool:
    return hit.beyond == "future" or (hit.value is not None and hit.value > today)


def _is_too_early(hit: DateHit) -> bool:
    return hit.beyond == "past" or (hit.value is not None and hit.value < MIN_DATE)


def _choose_date(hits: list[DateHit], remaining: str, today: date, language: str) -> DateScan:
    scan = DateScan(remaining=remaining)
    if any(h.rank in (RANK_NOW, RANK_TODAY) and h.year_only is None and h.value for h in hits):
        # "I lost a lot in the fall, should I buy NVDA now?", "NVDA fell last quarter, buy today?": a stretch of
        # time beside "now" or "today" is background.
        hits = [h for h in hits if not (h.vague or h.period)]
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
        scan.error = _question(bad, language)
        kind = "impossible" if bad.error else "unclear"
        scan.period = bad.period
        scan.reason = f"{kind} date '{bad.text}': {bad.error or bad.unclear or bad.ask}"
        return scan
    if not hits:
        return scan
    best = max(h.rank for h in hits)
    top = [h for h in hits if h.rank == best]
    distinct: dict[object, DateHit] = {}
    for h in top:
        distinct.setdefault(h.year_only or h.value or h.text, h)
    if len(distinct) > 1:
        ordered = sorted(distinct.values(), key=lambda h: h.start)
        shown = say(language, "or").join(_shown(h) for h in ordered[:3])
        example = next((h.value.isoformat() for h in reversed(ordered) if h.value and h.year_only is None),
                       "2024-05-01")
        scan.error = say(language, "several_dates", shown=shown, example=example)
        scan.reason = "several dates: " + ", ".join(f"'{h.text}'" for h in top)
        return scan
    chosen = top[0]
    scan.value, scan.explicit, scan.period = chosen.value, chosen.rank >= RANK_TODAY, chosen.period
    scan.reason = f"date {chosen.value} from {chosen.how} '{chosen.text}'"
    if _is_future(chosen, today):
        scan.value = None
        scan.error = say(language, "future", shown=_shown(chosen), today=today.isoformat(),
                         example=last_trading_day(today).isoformat())
        scan.reason = f"future date '{chosen.text}' ({chosen.value or 'beyond the calendar'})"
    elif _is_too_early(chosen):
        scan.value = None
        scan.error = say(language, "too_early", shown=_shown(chosen), min_date=MIN_DATE.isoformat(),
                         min_year=MIN_DATE.year)
        scan.reason = f"date before {MIN_DATE.year} '{chosen.text}' ({chosen.value or 'beyond the calendar'})"
    return scan


def _shown(hit: DateHit) -> str:
    """How a hit is named back: a typed date by its ISO form, anything else as typed."""
    if hit.value is not None and hit.year_only is None and hit.how != "decade":
        if hit.rank == RANK_ABSOLUTE:
            return hit.value.isoformat()
        return f"'{quoted(hit.text)}' ({hit.value.isoformat()})"
    return f"'{quoted(hit.text)}'"


def _question(hit: DateHit, language: str) -> str:
    """What to ask back about a date that is not one usable day."""
    q = quoted(hit.text)
    if hit.error:
        return say(language, "impossible", text=q, detail=hit.error)
    if hit.ask == "year" and hit.year_only is not None:
        example = last_trading_day(date(hit.year_only, 12, 31)).isoformat()
        return say(language, "whole_year", text=q, example=example)
    if hit.ask == "ambiguous" and len(hit.options) == 2:
        first, second = (d.isoformat() for d in hit.options)
        return say(language, "ambiguous", text=q, first=first, second=second)
    if hit.ask == "vague":
        return say(language, "vague", text=q)
    offer = say(language, "offer", suggest=hit.suggest) if hit.suggest else ""
    return say(language, "unreadable", text=q, detail=hit.unclear or say(language, "unreadable_detail"), offer=offer)
