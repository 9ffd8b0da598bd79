"""The second look-ahead guard: whatever a vendor returns is cut at the trade date.

Every tool passes vendor data through one of these cuts before it shows or
counts anything, so a sloppy vendor (or a live API that ignores ``end``) still
cannot leak the future. They also normalise the shapes live APIs return.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pandas as pd

from ..data.vendor import FILED_ATTR, QUARTER_FILING_LAG, Event, NewsItem, Observation, Post


def day_of(moment: date | datetime) -> date:
    """The calendar day of a date or timestamp."""
    return moment.date() if isinstance(moment, datetime) else moment


def in_window(moment: date | datetime, start: date, end: date) -> bool:
    return start <= day_of(moment) <= end


def cut_prices(frame: pd.DataFrame | None, as_of: date) -> pd.DataFrame:
    """Normalise an OHLCV frame and drop every row after ``as_of``.

    Accepts what live APIs return too: capitalised columns, a tz-aware or
    plain-date index, unsorted rows.
    """
    if frame is None or len(frame) == 0:
        return pd.DataFrame(columns=["open", "high", "low", "close", "volume"])
    frame = frame.rename(columns=str.lower)
    frame = frame[["open", "high", "low", "close", "volume"]].copy()
    index = pd.DatetimeIndex(pd.to_datetime(frame.index))
    if index.tz is not None:
        index = index.tz_localize(None)
    frame.index = index.normalize()
    frame = frame.sort_index().dropna(subset=["close"])
    return frame[frame.index <= pd.Timestamp(as_of)]


def cut_news(news: list[NewsItem] | None, start: date, end: date) -> list[NewsItem]:
    """Headlines dated in [start, end], newest first."""
    return sorted(
        (n for n in news or [] if in_window(n.published, start, end)),
        key=lambda n: n.published,
        reverse=True,
    )


def cut_posts(posts: list[Post] | None, start: date, end: date) -> list[Post]:
    """Social posts created in [start, end], newest first."""
    return sorted(
        (p for p in posts or [] if in_window(p.created, start, end)),
        key=lambda p: p.created,
        reverse=True,
    )


def cut_grades(grades: list[dict[str, Any]] | None, as_of: date) -> list[dict[str, Any]]:
    """Analyst grade changes dated on or before ``as_of``, newest first."""
    kept = [g for g in grades or [] if "date" in g and day_of(g["date"]) <= as_of]
    kept.sort(key=lambda g: day_of(g["date"]), reverse=True)
    return kept


def cut_events(events: list[Event] | None, as_of: date, until: date) -> list[Event]:
    """Events dated in [as_of, until] that were on the calendar on ``as_of``: one announced later is
    dropped (one whose announcement the vendor does not know is kept, marked approximate by it), soonest first."""
    kept = [e for e in events or [] if as_of <= day_of(e.day) <= until
            and (e.announced is None or day_of(e.announced) <= as_of)]
    return sorted(kept, key=lambda e: (day_of(e.day), e.kind))


def cut_observations(observations: list[Observation] | None, as_of: date) -> list[Observation]:
    """Macro observations dated on or before ``as_of`` and published by then (their vintage began on or
    before it), oldest first: a vendor that ignored the vintage still cannot show a later release."""
    kept = [o for o in observations or [] if day_of(o.day) <= as_of and day_of(o.realtime_start) <= as_of]
    return sorted(kept, key=lambda o: o.day)


def _filing_dates(frame: pd.DataFrame) -> dict[pd.Timestamp, pd.Timestamp]:
    """Filing date per statement column, estimated when the vendor omits it."""
    given = {
        pd.Timestamp(k): pd.Timestamp(v) for k, v in frame.attrs.get(FILED_ATTR, {}).items()
    }
    dates = {}
    for column in frame.columns:
        period = pd.Timestamp(column)
        dates[period] = given.get(period, period + QUARTER_FILING_LAG)
    return dates


def cut_statement(
    frame: pd.DataFrame | None, as_of: date
) -> tuple[pd.DataFrame, dict[pd.Timestamp, pd.Timestamp]]:
    """Only periods filed on or before ``as_of``, newest first, with their filing dates."""
    if frame is None or frame.empty:
        return pd.DataFrame(), {}
    filed = _filing_dates(frame)
    cutoff = pd.Timestamp(as_of)
    keep = [
        c for c in frame.columns
        if pd.Timestamp(c) <= cutoff and filed[pd.Timestamp(c)] <= cutoff
    ]
    keep.sort(key=pd.Timestamp, reverse=True)
    return frame[keep], {pd.Timestamp(c): filed[pd.Timestamp(c)] for c in keep}
