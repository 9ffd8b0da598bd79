"""The market-data vendor interface shared by the synthetic and live vendors.

Every analyst tool talks to data through this protocol only, so swapping the
deterministic demo vendor for a live one (yfinance) touches no tool code.

Conventions every vendor follows (the tools rely on them):

* Methods are synchronous; tools run them in a worker thread.
* All date arguments are inclusive calendar dates. A vendor must not return a
  row or item dated after the ``end`` / ``as_of`` it was given. (The tools cut
  again anyway; this is the first of two guards against look-ahead.)
* Timestamps are naive and in exchange-local time (US/Eastern for US
  listings); a live vendor converts before returning.
* Ratios in ``profile`` are plain fractions (0.12 means 12 %), except
  ``pe``/``forward_pe``/``pb``/``beta``/``debt_to_equity`` which are multiples
  (debt_to_equity 1.5 means debt is 1.5x equity). Unknown values are ``None``.
* Statement frames use yfinance-style line-item names as the index
  ("Total Revenue", "Net Income", "Free Cash Flow", ...), one column per
  report period (period-end ``pd.Timestamp``), newest first, and carry the
  filing date of each column in ``frame.attrs[FILED_ATTR]``.
* Failures raise :class:`VendorError` whose message is a short human reason.
* Scheduled events (:meth:`Vendor.events`) are point in time: those on the
  calendar on ``as_of`` (announced by then), dated in [as_of, until]. A vendor
  that cannot know what was scheduled then marks the event ``approximate``
  and says why in ``basis``.
* Macro series (:meth:`Vendor.macro_series`) are point in time too: each observation as published on
  ``as_of`` (ALFRED's vintage of that day: ``realtime_start`` = ``realtime_end`` = ``as_of``), so a later
  revision or a release after ``as_of`` is never returned. A vendor with no macro source (live without
  ``FRED_API_KEY``) has ``macro_source`` None.
* Option chains (:meth:`Vendor.option_chain`) are not historical: the tool asks only for today's session
  (a live vendor refuses an older day), the nearest expiry at least a week out, in yfinance's
  ``Ticker.option_chain`` shape.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal, Protocol, runtime_checkable

import pandas as pd

from graph.core.assets import AssetClass, classify

StatementKind = Literal["income", "balance", "cashflow"]
Sentiment = Literal["bullish", "bearish"]
EventKind = Literal["earnings", "ex_dividend", "dividend", "split"]

OHLCV_COLUMNS: tuple[str, ...] = ("open", "high", "low", "close", "volume")

# Key in ``DataFrame.attrs`` holding {period_end: filing_date} for statements.
# Filing dates matter because a quarter's numbers are only public once filed.
FILED_ATTR = "filed"

# When a source gives no filing date, a period's figures are assumed public this long after
# the period ends: US 10-Qs are due within 40-45 days, 10-Ks within 60-90. The one home of
# the assumption (the live vendor dates its statements with it; the tools fall back to it).
QUARTER_FILING_LAG = timedelta(days=45)
ANNUAL_FILING_LAG = timedelta(days=90)


class VendorError(Exception):
    """A vendor could not answer; ``str(err)`` is the human reason.

    Examples: "rate limited", "unknown ticker XYZ", "timeout".
    """


class UnknownSymbol(VendorError):
    """The vendor has no prices for this symbol in the range asked (a typo, a delisted or a
    not yet listed ticker), as opposed to a failure worth retrying: the desk stops before its
    analysts instead of deliberating on no data."""


@dataclass(slots=True)
class VendorCall:
    """One vendor call as its callers see it (issue 36): ``stop`` is set when the caller gave up on it
    (its time limit passed, or the run was stopped), ``partial`` when the vendor answered with only part
    of what it was asked (one of two feeds failed). Neither answer may be cached: a late answer nobody
    waits for, and a part taken for the whole until its TTL ends, or forever for a closed period."""
    stop: threading.Event = field(default_factory=threading.Event)
    partial: bool = False

    @property
    def abandoned(self) -> bool:
        return self.stop.is_set()


_CALL: ContextVar[VendorCall | None] = ContextVar("vendor_call", default=None)


@contextmanager
def vendor_call(stop: threading.Event | None = None) -> Iterator[VendorCall]:
    """The call made inside this block: a fresh record that shares the enclosing call's ``stop`` (a cache
    in front of a vendor opens one per inner call), or the ``stop`` given (the tools' time limit)."""
    outer = _CALL.get()
    call = VendorCall(stop if stop is not None else outer.stop if outer is not None else threading.Event())
    token = _CALL.set(call)
    try:
        yield call
    finally:
        _CALL.reset(token)
        if outer is not None and call.partial:
            outer.partial = True


def abandoned() -> bool:
    """True when whoever waits for the current vendor call gave up on it: a vendor stops retrying."""
    call = _CALL.get()
    return call is not None and call.abandoned


def answered_in_part() -> None:
    """A vendor says its answer to the current call is partial (so it is not cached)."""
    call = _CALL.get()
    if call is not None:
        call.partial = True


@dataclass(frozen=True, slots=True)
class NewsItem:
    published: datetime
    title: str
    publisher: str
    summary: str = ""
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Post:
    created: datetime
    text: str
    sentiment: Sentiment | None
    source: str


@dataclass(frozen=True, slots=True)
class Event:
    """A scheduled event of the instrument: an earnings report, a dividend's ex-date or payment date, a split.

    ``announced`` is the day it was on the calendar from (None when the source does not say);
    ``approximate`` is True when the date was not known to be scheduled on the trade date (a live
    source's calendar is today's: a past earnings date it reports is known after the fact), ``basis``
    says why. ``amount`` is a dividend per share in the listing's currency, ``ratio`` a split's
    ("4:1")."""
    kind: EventKind
    day: date
    announced: date | None = None
    approximate: bool = False
    basis: str = ""
    amount: float | None = None
    ratio: str | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class Observation:
    """One observation of a macro series as a vintage holds it (FRED/ALFRED): the period it is for, its value
    (None for FRED's "." , not yet known), and the days that value was the published one
    (``realtime_start`` is the day it was published or last revised)."""
    day: date
    value: float | None
    realtime_start: date
    realtime_end: date


@dataclass(frozen=True)
class OptionChain:
    """One expiry of an instrument's listed options as quoted on ``quoted`` (yfinance's
    ``Ticker.option_chain`` shape: ``calls`` and ``puts`` frames with at least ``strike``, ``openInterest``,
    ``volume`` and ``impliedVolatility``, the last a fraction), and the underlying's price then."""
    expiry: date
    calls: pd.DataFrame
    puts: pd.DataFrame
    underlying: float | None
    quoted: date
    source: str = ""


@runtime_checkable
class Vendor(Protocol):
    """What the analyst tools need from a market-data source."""

    # Read-only, so a wrapper (the cache) may answer them with properties.
    @property
    def name(self) -> str:
        """Machine id: "synthetic", "yfinance"."""
        ...

    @property
    def label(self) -> str:
        """Shown to humans next to any figure, e.g. "synthetic demo data"."""
        ...

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        """Daily bars with columns open, high, low, close, volume.

        Index: DatetimeIndex (or dates), ascending, only rows in [start, end].
        An unknown range yields an empty frame; an unknown ticker raises.
        """
        ...

    def profile(self, ticker: str, as_of: date) -> dict:
        """Company profile and valuation ratios as of ``as_of``.

        Keys: name, sector, industry, currency, market_cap, shares_outstanding,
        pe, forward_pe, pb, dividend_yield, beta, profit_margin,
        debt_to_equity, revenue_growth. Any value may be None.
        """
        ...

    def statements(
        self, ticker: str, as_of: date, kind: StatementKind
    ) -> pd.DataFrame:
        """Quarterly statements filed on or before ``as_of``.

        Index = line items, columns = period ends (newest first), and
        ``attrs[FILED_ATTR]`` maps each column to its filing date.
        """
        ...

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        """Company news published in [start, end], newest first."""
        ...

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        """Market-wide / macro news published in [start, end], newest first."""
        ...

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        """Social posts about the ticker created in [start, end], newest first."""
        ...

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        """Analyst grade changes on or before ``as_of``, newest first.

        Each dict: date (date), firm, to_grade, from_grade, action.
        """
        ...

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        """Earnings, ex-dividend, dividend and split dates in [as_of, until] as scheduled on ``as_of``
        (point in time; see the module docstring), soonest first. No earnings for what is not a
        company; a fund's distributions are its dividends."""
        ...

    @property
    def macro_source(self) -> str | None:
        """Where the macro series come from, as shown ("FRED/ALFRED vintages"); None: no macro source."""
        ...

    def macro_series(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        """A FRED series' observations dated in [start, as_of], each as published on ``as_of`` (point in
        time; see the module docstring), oldest first."""
        ...

    def option_chain(self, ticker: str, as_of: date) -> OptionChain | None:
        """The chain of the nearest expiry at least a week out, as quoted on ``as_of``; None when the instrument has
        no listed options. Chains are not historical: the tool asks only for today's session, and a live vendor
        refuses (VendorError) an older ``as_of``; the synthetic one computes any day's."""
        ...

    def asset_class(self, ticker: str) -> AssetClass:
        """What the instrument is (graph/core/assets.py): the vendor's own metadata where it has some
        (Yahoo's quoteType), else read from the symbol."""
        ...


def asset_class_of(vendor: Vendor, ticker: str) -> AssetClass:
    """The vendor's class for ``ticker``; read from the symbol when the vendor cannot say (an outage, or a
    vendor written before classes)."""
    ask = getattr(vendor, "asset_class", None)
    if ask is None:
        return classify(ticker)
    try:
        return ask(ticker)
    except VendorError:
        return classify(ticker)


def finite(value: object) -> float | None:
    """A finite float, or None for None, NaN, inf, booleans and non-numbers (vendors send all of them)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
