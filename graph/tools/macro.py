"""The Macro Analyst's tool: the economy around the trade, as it was published by the trade date (issue 38).

Seven FRED series, each read at the vintage of the trade date (ALFRED: graph/data/fred.py; the demo's
synthetic series have vintages too): the policy rate (the effective federal funds rate, ``DFF``), CPI
(``CPIAUCSL``, as a year-on-year change), payrolls (``PAYEMS``, the month's change), unemployment
(``UNRATE``), the 2- and 10-year Treasury yields (``DGS2``, ``DGS10``) and the VIX (``VIXCLS``). A CPI month
revised later is shown at the value published by then; a month released after the trade date is not shown.

Each series is one vendor call: one that fails is named, the others still answer; all failing is a failure
(the analyst's report says what it lacks), none published by then is "no data".
A vendor with no macro source (live without ``FRED_API_KEY``) gives the Macro Analyst no tool at all, and
the analyst says so in one line (graph/nodes/analysts.py), without a model call.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from langchain_core.tools import BaseTool

from ..data.vendor import Observation, Vendor, VendorError
from .args import NoArgs
from .cutoff import cut_observations
from .formatting import r2, table
from .guarded import Figures, NoData, call_vendor, guarded_tool, reason

TOOL = "get_macro_indicators"


@dataclass(frozen=True)
class MacroSeries:
    id: str
    name: str
    monthly: bool


MACRO_SERIES: tuple[MacroSeries, ...] = (
    MacroSeries("DFF", "Fed funds effective rate %", False),
    MacroSeries("CPIAUCSL", "CPI index", True),
    MacroSeries("PAYEMS", "Nonfarm payrolls (thousands)", True),
    MacroSeries("UNRATE", "Unemployment rate %", True),
    MacroSeries("DGS2", "2-year Treasury yield %", False),
    MacroSeries("DGS10", "10-year Treasury yield %", False),
    MacroSeries("VIXCLS", "VIX close", False),
)
# How far back each kind is read: 13 months and a release's lag for a year-on-year CPI, a quarter for dailies.
_MONTHLY_DAYS, _DAILY_DAYS = 500, 100


def has_macro(vendor: Vendor) -> bool:
    """Whether the vendor has a macro source (a vendor written before macro series has none)."""
    return bool(getattr(vendor, "macro_source", None))


def _known(observations: list[Observation]) -> list[Observation]:
    return [o for o in observations if o.value is not None]


def _back(observations: list[Observation], day: date) -> Observation | None:
    """The last observation on or before ``day``."""
    return next((o for o in reversed(observations) if o.day <= day), None)


def _month(o: Observation) -> str:
    return o.day.strftime("%Y-%m")


def _row(series: MacroSeries, found: list[Observation], figures: Figures) -> list[object]:
    """The series' line of the table (latest value, its period, the comparison) and its figures."""
    last = found[-1]
    value = last.value
    assert value is not None
    if series.id == "CPIAUCSL":
        year_ago = next((o for o in found if o.day == last.day.replace(year=last.day.year - 1)), None)
        yoy = r2(100 * (value / year_ago.value - 1)) if year_ago and year_ago.value else None
        figures |= {"CPI YoY %": yoy, "CPI Month": _month(last)}
        return [f"{series.name} ({series.id})", value, _month(last), f"{yoy:+.2f}% year on year" if yoy is not None
                else "no year-ago month"]
    if series.id == "PAYEMS":
        change = round(value - found[-2].value) if len(found) > 1 and found[-2].value is not None else None
        figures |= {"Payrolls Change K": change, "Payrolls Month": _month(last)}
        return [f"{series.name} ({series.id})", round(value), _month(last),
                f"{change:+d}K on the month" if change is not None else "no prior month"]
    if series.id == "UNRATE":
        before = _back(found, last.day - timedelta(days=85))
        figures |= {"Unemployment Rate %": value, "Unemployment Month": _month(last)}
        return [f"{series.name} ({series.id})", value, _month(last),
                f"3 months before {before.value}" if before else ""]
    before = _back(found, last.day - timedelta(days=30))
    label = {"DFF": "Fed Funds Rate %", "DGS2": "2Y Yield %", "DGS10": "10Y Yield %", "VIXCLS": "VIX"}[series.id]
    figures[label] = value
    return [f"{series.name} ({series.id})", value, last.day.isoformat(),
            f"a month before {before.value}" if before and before.value is not None else ""]


async def _series(vendor: Vendor, series: MacroSeries, as_of: date) -> list[Observation] | Exception:
    """One series at the trade date's vintage, cut at it; a failure is returned, to be named beside the rest."""
    start = as_of - timedelta(days=_MONTHLY_DAYS if series.monthly else _DAILY_DAYS)
    try:
        return cut_observations(await call_vendor(vendor.macro_series, series.id, start, as_of), as_of)
    except Exception as exc:
        return exc


def _read(answers: list[list[Observation] | Exception], as_of: date) -> tuple[list[list[object]], Figures, list[str]]:
    """The table's rows, the figures and what is missing, from every series' answer."""
    figures: Figures = {}
    rows: list[list[object]] = []
    missing: list[str] = []
    for series, answer in zip(MACRO_SERIES, answers, strict=True):
        if isinstance(answer, Exception):
            missing.append(f"{series.id}: {reason(answer)}")
        elif not (found := _known(answer)):
            missing.append(f"{series.id}: nothing published by {as_of}")
        else:
            rows.append(_row(series, found, figures))
    if isinstance(ten := figures.get("10Y Yield %"), float) and isinstance(two := figures.get("2Y Yield %"), float):
        figures["10Y-2Y Spread"] = r2(ten - two)
    return rows, figures, missing


def macro_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    """The Macro Analyst's kit: none when the vendor has no macro source (the analyst then says so)."""
    if not has_macro(vendor):
        return []
    source = str(getattr(vendor, "macro_source", ""))

    async def indicators() -> tuple[str, Figures, list[str], dict[str, Any]]:
        answers = await asyncio.gather(*(_series(vendor, s, as_of) for s in MACRO_SERIES))
        rows, figures, missing = _read(list(answers), as_of)
        if not rows and all(isinstance(a, Exception) for a in answers):
            raise VendorError("; ".join(missing))  # an outage: the analyst says what it lacks, a backtest day fails
        if not rows:
            raise NoData("; ".join(missing))
        lines = [f"United States macro data, each series as published by {as_of} (that day's vintage: "
                 "no later revision, no later release):",
                 table(["series", "latest", "for", "compared"], rows)]
        if (spread := figures.get("10Y-2Y Spread")) is not None:
            lines.append(f"10-year minus 2-year yield: {float(spread):+.2f} points")
        if missing:
            lines.append("Unavailable: " + "; ".join(missing))
        return "\n".join(lines), figures, [], {"macro_source": source, "unavailable": missing}

    return [guarded_tool(
        TOOL,
        f"US macro data as published by {as_of}: policy rate, CPI, payrolls, unemployment, 2y and 10y yields, VIX.",
        NoArgs, vendor, as_of, indicators, source_label=source,
    )]
