"""The synthetic vendor's macro series, with vintages: what the demo's Macro Analyst reads (issue 38, point 2).

Deterministic (SHA-256 draws, as the rest of the synthetic vendor) and point in time the way ALFRED is: each
observation has the day it was first published and, for the revised series, the day it was revised, and
:func:`observations` answers a day as published on it, in FRED's shape (``realtime_start`` =
``realtime_end`` = that day).

* **Monthly** (the month's first day, as FRED dates them): CPI (``CPIAUCSL``) published on a weekday of the
  10th-14th of the next month and revised once, when the month after it is published; payrolls (``PAYEMS``,
  thousands) and unemployment (``UNRATE``) on the first Friday of the next month, payrolls revised when the
  next month is published, unemployment never.
* **Daily** (weekdays): the effective federal funds rate (``DFF``), the 2- and 10-year Treasury yields
  (``DGS2``, ``DGS10``) and the VIX close (``VIXCLS``), each published the next weekday and never revised.

Series it does not know raise :class:`VendorError`, as FRED answers an unknown series.
"""
from __future__ import annotations

import math
from datetime import date, timedelta
from functools import lru_cache

from graph.data.synthetic_company import _between, _unit
from graph.data.vendor import Observation, VendorError

LABEL = "synthetic demo macro series (made up, with vintages)"
FIRST_MONTH = date(2010, 1, 1)
LAST_MONTH = date(2040, 12, 1)
MONTHLY = ("CPIAUCSL", "PAYEMS", "UNRATE")
DAILY = ("DFF", "DGS2", "DGS10", "VIXCLS")
REVISED = ("CPIAUCSL", "PAYEMS")


def _next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def _months() -> list[date]:
    out, month = [], FIRST_MONTH
    while month <= LAST_MONTH:
        out.append(month)
        month = _next_month(month)
    return out


def _weekday_on_or_after(day: date) -> date:
    return day + timedelta(days=(7 - day.weekday()) % 7 if day.weekday() > 4 else 0)


def _next_weekday(day: date) -> date:
    return _weekday_on_or_after(day + timedelta(days=1))


def release_day(series_id: str, month: date) -> date:
    """The day the figure for ``month`` is first published: CPI mid-month, the jobs report the first Friday."""
    following = _next_month(month)
    if series_id == "CPIAUCSL":
        return _weekday_on_or_after(following + timedelta(days=9 + int(_unit("cpi-release", month) * 5)))
    return following + timedelta(days=(4 - following.weekday()) % 7)  # the first Friday


def revision_day(series_id: str, month: date) -> date | None:
    """When ``month``'s figure is revised (with the next month's release); None when it never is."""
    return release_day(series_id, _next_month(month)) if series_id in REVISED else None


@lru_cache(maxsize=8)
def _monthly(series_id: str) -> dict[date, tuple[float, float]]:
    """Every month's (first-published, revised) value: one cumulative path per series."""
    out: dict[date, tuple[float, float]] = {}
    cpi, jobs = 217.0, 130_000.0
    for i, month in enumerate(_months()):
        if series_id == "CPIAUCSL":
            cpi *= 1 + 0.0015 + 0.0015 * math.sin(i / 14) + _between(-0.001, 0.0025, "cpi", month)
            # A revision of 0.05-0.30 index points, up or down, never none: the demo's CPI is revised later.
            change = _between(0.05, 0.3, "cpi-rev", month) * (1 if _unit("cpi-rev-sign", month) < 0.5 else -1)
            out[month] = (round(cpi, 3), round(cpi + change, 3))
        elif series_id == "PAYEMS":
            jobs += 90 + 140 * math.sin(i / 9) + _between(-80, 120, "jobs", month)
            change = _between(5, 60, "jobs-rev", month) * (1 if _unit("jobs-rev-sign", month) < 0.5 else -1)
            out[month] = (round(jobs), round(jobs + change))
        else:  # UNRATE
            rate = round(3.6 + 1.2 * (1 + math.sin(i / 20)) / 2 + _between(-0.15, 0.15, "unrate", month), 1)
            out[month] = (rate, rate)
    return out


def _policy_rate(day: date) -> float:
    """The target range's midpoint: a slow cycle in quarter-point steps between 0.125 and 5.375."""
    months = (day.year - FIRST_MONTH.year) * 12 + day.month - 1
    level = 2.75 + 2.625 * math.sin(months / 22)
    return round(level * 4) / 4 + 0.125 if level > 0.125 else 0.125


def _daily(series_id: str, day: date) -> float:
    base = _policy_rate(day) - 0.05
    if series_id == "DFF":
        return round(base + _between(-0.01, 0.01, "dff", day), 2)
    months = (day.year - FIRST_MONTH.year) * 12 + day.month - 1
    two = max(0.05, base + 0.35 * math.sin(months / 7) + _between(-0.08, 0.08, "dgs2", day))
    if series_id == "DGS2":
        return round(two, 2)
    if series_id == "DGS10":
        return round(max(0.3, two + 0.3 + 1.1 * math.sin(months / 30) + _between(-0.06, 0.06, "dgs10", day)), 2)
    return round(13 + 14 * _unit("vix-month", day.year, day.month) ** 3 + _between(-1.5, 1.5, "vix", day), 2)


def observations(series_id: str, start: date, as_of: date) -> list[Observation]:
    """``series_id``'s observations dated in [start, as_of] as published on ``as_of``, oldest first."""
    if series_id in MONTHLY:
        values = _monthly(series_id)
        out = []
        for month, (first, revised) in values.items():
            if not start <= month <= as_of or release_day(series_id, month) > as_of:
                continue
            revised_on = revision_day(series_id, month)
            out.append(Observation(month, revised if revised_on and revised_on <= as_of else first, as_of, as_of))
        return out
    if series_id in DAILY:
        out, day = [], _weekday_on_or_after(max(start, FIRST_MONTH))
        while day <= as_of and _next_weekday(day) <= as_of:  # a day's figure is out the next weekday
            out.append(Observation(day, _daily(series_id, day), as_of, as_of))
            day = _next_weekday(day)
        return out
    raise VendorError(f"FRED has no series {series_id!r} in the demo")
