"""A date phrase found in a message (:class:`DateHit`), how specific it is (its rank), and the
earliest date the desk analyses; shared by the finders, :mod:`graph.request.resolve_dates` and
:mod:`graph.request.dates`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from .date_meanings import Ask, Meaning

# Market data before this is patchy for most symbols; refuse rather than
# produce an analysis on nothing.
MIN_DATE = date(1990, 1, 1)

# How specific a date phrase is. Only the highest-ranked hits are used, so
# "now" never argues with "last Friday", and "today" counts as explicit.
RANK_NOW, RANK_TODAY, RANK_RELATIVE, RANK_ABSOLUTE = 0, 1, 2, 3

Beyond = Literal["future", "past"]


@dataclass
class DateHit:
    """A phrase at ``start``:``end``. A finder says what it means (``meaning``);
    :func:`graph.request.resolve_dates.resolve` fills in the rest on the day it is read."""

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
    # A quarter, half or season (graph/request/period_dates.py): talk of a stretch of time, which gives way
    # to an explicit "now" or "today" and, in a question about the analysis on screen, to that analysis.
    period: bool = False
    meaning: Meaning | None = None  # what the phrase says, before it is a day


def quoted(text: str, limit: int = 40) -> str:
    """User text to quote back: bounded, and no backticks to break the Markdown."""
    text = " ".join(text.replace("`", "'").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def found(m: re.Match[str], meaning: Meaning, how: str, rank: int = RANK_ABSOLUTE) -> DateHit:
    """The hit of a finder's match: what it means, its day yet to be resolved."""
    return DateHit(m.start(), m.end(), m.group(0).strip(), None, rank, how, meaning=meaning)


def relative_rank(meaning: Meaning) -> tuple[int, str]:
    """The rank and the name of a phrase said relative to today: an explicit "today", the filler "now", or
    another day ("yesterday", "last week")."""
    if meaning.kind == "today":
        return RANK_TODAY, "today"
    if meaning.kind == "now":
        return RANK_NOW, "now"
    return RANK_RELATIVE, "relative date"
