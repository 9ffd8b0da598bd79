"""The date finders, in the order they read a message: one registry (graph/request/dates.py runs it).

Each finder reads what the ones before it left: a phrase it takes is blanked before the next reads the text. So the
order is meaning: quarters, halves and seasons first ("2024年第三季度" is not the year 2024), then other languages'
dates, then the English finders, which read the message with its Chinese and Japanese blanked ("英伟达2024/5/1" is
"2024/5/1" to them), the most specific first (an ISO date before a bare number, "May 5 2024" before "May 5", a
year last but one: "2024" alone only when nothing else took it).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .absolute_dates import (
    find_decade,
    find_iso,
    find_named,
    find_named_no_year,
    find_numeric,
    find_numeric_no_year,
    find_year,
    find_year_month,
)
from .date_hits import DateHit
from .garbled_dates import find_garbled
from .intl_dates import find_intl_dates
from .period_dates import find_periods
from .relative_dates import find_now, find_relative, find_weekday


@dataclass(frozen=True)
class Finder:
    """One finder: `find(text)` yields its hits, each with what it means (graph/request/resolve_dates.py makes
    that a day: a finder never reads the calendar). `reads_cjk`: it reads Chinese and Japanese (else it gets
    the text with them blanked); `in_cjk_text`: it runs on a message that has any (a bare year does not: Chinese
    writes years with 年, and there "1810" is Xiaomi's code)."""

    name: str
    find: Callable[[str], Iterable[DateHit]]
    reads_cjk: bool = False
    in_cjk_text: bool = True


DATE_FINDERS: tuple[Finder, ...] = (
    Finder("quarters, halves and seasons", find_periods, reads_cjk=True),
    Finder("other languages' dates", find_intl_dates, reads_cjk=True),
    Finder("ISO dates", find_iso),
    Finder("numeric dates", find_numeric),
    Finder("a year and a month", find_year_month),
    Finder("named months with a year", find_named),
    Finder("named months", find_named_no_year),
    Finder("numeric days", find_numeric_no_year),
    Finder("relative dates", find_relative),
    Finder("weekdays", find_weekday),
    Finder("decades", find_decade),
    Finder("a bare year", find_year, in_cjk_text=False),
    Finder("now", find_now),
    Finder("garbled dates", find_garbled),
)

# The finders that read Chinese and Japanese come first: from the first that does not, the rest is blanked.
assert [f.reads_cjk for f in DATE_FINDERS] == sorted((f.reads_cjk for f in DATE_FINDERS), reverse=True)
