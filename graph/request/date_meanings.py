"""What a date phrase means (:class:`Meaning`), before it is a day.

The finders only read: each says what a phrase means ("3 days back", "the Friday of last week", "the end of
March of the year said before it") and :mod:`graph.request.resolve_dates` alone turns a meaning and today
into the day, or into the question back ("which day of 2022?", "that is ahead"). The words of other languages
and the English phrases said relative to today are data mapped to meanings (``data/date_phrases.tsv``,
``data/date_phrases_en.tsv``, read by :func:`phrase_meaning`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# What a phrase that is not one usable day asks back.
Ask = Literal["unreadable", "vague", "year", "ambiguous"]
YearHow = Literal["said", "short", "shift", "recent", "coming", "next", "ended"]


@dataclass(frozen=True)
class Year:
    """How a phrase names its year: as said ("2024": ``said``), by two digits ("24", "九八": ``short``, the most
    recent century's), counted from this one ("去年": ``shift`` -1, "this March": ``shift`` 0), or not at all,
    by the months the phrase spans: the most recent such that has begun ("in March": ``recent``), the coming
    one when the message speaks of what is to come ("will NVDA rise in March?": ``coming``), the first one
    after the current month ("next March": ``next``), the last one that has ended ("last summer": ``ended``)."""

    value: int = 0
    how: YearHow = "said"


THIS_YEAR = Year(0, "shift")

Kind = Literal[
    "today",  # today, said ("today", "hoy", "今天")
    "now",  # today as filler ("now", "currently", "现在")
    "offset",  # today moved n units (n < 0: back; unit "session": trading sessions back)
    "weekday",  # a weekday (which: 0 = Monday) by mode: "" the most recent, "last" strictly before today,
    #             "next" strictly after, "week" that day of the week n from this one (0: this week's)
    "week_end",  # the Friday of the week n from this one ("last week": -1)
    "month_end",  # the last day of a month (even while ahead): year and month, or the month n from this one
    "quarter_end",  # the last day of the quarter n from this one ("the end of the quarter": 0)
    "month",  # a month of a year: its last day, today while it is the current one
    "past_month",  # "last March": last year's while this year's is not over, else which one is asked
    "quarter",  # a quarter (which) of a year, or the one n from this one: its last day, today while current
    "date",  # a day of a year
    "recent_day",  # a day of a month without a year: mode "" the most recent on or before today, "last"
    #                strictly before it, "next" the coming one after it
    "lunar",  # a day of the Chinese calendar (month, day) of a year, or the most recent one
    "national_day",  # the days of October in numbers, of a year or the most recent: two are asked which
    "two_readings",  # numbers (first, second, third) of "24-05-01": day first or year first
    "year",  # a whole year (mode "for": a horizon when ahead, no date)
    "decade",  # the decade from year n
    "part",  # the beginning or a part of a month (year and month, or the month n from this one): asked
    "stretch",  # a half or a season from year and month: asked, unless something more specific is said
    "vague",  # "years ago", "a while ago": no day at all, asked unless something more specific is said
    "ask",  # asked back whatever today is (ask, reason: why, suggest: a date the user may have meant)
    "impossible",  # not on any calendar (reason: why)
]


@dataclass(frozen=True)
class Meaning:
    """What a phrase means; which fields count is the ``kind``'s (see :data:`Kind`)."""

    kind: Kind
    n: int = 0
    unit: str = ""
    year: Year | None = None
    month: int = 0
    day: int = 0
    which: int = 0
    mode: str = ""
    numbers: tuple[int, ...] = ()
    ask: Ask | None = None
    reason: str = ""
    suggest: str | None = None


def inherited(years: Sequence[tuple[int, Year]], start: int) -> Year | None:
    """The year of the last date said with one before ``start``: "May 1, 2024 or June 3" and
    "2024年5月1日还是6月3日" are in 2024. ``years`` holds (end, year) of each date said with its year."""
    before = [year for end, year in years if end <= start]
    return before[-1] if before else None


def phrase_meaning(tag: str) -> Meaning | None:
    """A meaning of the phrase tables (``data/date_phrases.tsv``, ``data/date_phrases_en.tsv``): today, now,
    day:N, month:N, year:N (today moved), weekend:N (the Friday of the week N from this one; lastweek is
    weekend:-1), monthend:N, quarterend:N, yearend:N (the last day of the month ... N from this one); None
    for the words that are only parts of a phrase (weekday:N, number:N, unit:..., marker)."""
    head, _, value = tag.partition(":")
    n = int(value) if value.lstrip("+-").isdigit() else 0
    if head == "today":
        return Meaning("today")
    if head == "now":
        return Meaning("now")
    if head in ("day", "month", "year"):
        return Meaning("offset", n=n, unit=head)
    if head in ("weekend", "lastweek"):
        return Meaning("week_end", n=n if head == "weekend" else -1)
    if head == "monthend":
        return Meaning("month_end", n=n)
    if head == "quarterend":
        return Meaning("quarter_end", n=n)
    if head == "yearend":
        return Meaning("date", year=Year(n, "shift"), month=12, day=31)
    return None
