"""The live market-data vendor: Yahoo Finance through ``yfinance`` (plus StockTwits and Reddit).

It follows the conventions in :mod:`graph.data.vendor`; the points specific to
Yahoo are:

* **Prices** use ``history(auto_adjust=False)``: the ``Close`` column is the
  printed close, adjusted for splits only ("Adj Close" is ignored). Dividend
  adjustment would rescale the whole past series every time a new dividend is
  paid, so cached past answers would drift and old closes would not match the
  prices a trader saw. (Splits are still back-adjusted by Yahoo; that cannot be
  turned off.) The index is made tz-naive in exchange-local time.
* **Profile** ratios come from ``Ticker.info``, which only knows *today's*
  values. Returning them for an analysis dated in the past would be
  look-ahead, so they are returned only when ``as_of`` is within
  ``LIVE_PROFILE_DAYS`` of today; otherwise only the static fields (name,
  sector, industry, currency) are filled and every ratio is ``None``.
* **Statements** from yfinance carry no filing date, so each column is assumed
  filed ``QUARTER_FILING_LAG`` (quarters) / ``ANNUAL_FILING_LAG`` (annual)
  after the period end -- conservative: US 10-Qs are due within 40-45 days,
  10-Ks within 60-90. Periods "filed" after ``as_of`` are dropped.
* **News** comes from ``Ticker.news``, which only serves the latest handful of
  stories, so a historical window usually yields ``[]`` (the tool then says
  "no data"). Both the old flat and the new nested item shapes are parsed;
  times are converted from UTC to US/Eastern and made naive.
* **Social posts** come from two public feeds that need no key: the
  StockTwits symbol stream (latest ~30 messages only; its own
  bullish/bearish labels) and Reddit's JSON search (``$SYM OR SYM``, newest
  100 posts of the last month; labelled by the keyword scorer in
  :mod:`graph.data.tone`, so unlabelled when no tone word matches). Both are
  asked and their posts in the window merged. A feed that fails, or answers
  with nothing in the window, just leaves the other; when neither yields a
  post and at least one failed, ``VendorError("social feeds unreachable:
  stocktwits: ...; reddit: ...")`` names both reasons (so a cache never keeps
  an outage as "no posts"). Both feeds answering with nothing gives ``[]``.
* **Events** (earnings, dividends, splits): ``Ticker.calendar`` is today's only, so a trade date in the
  past gets what happened (reported earnings dates, ex-dividend dates, splits) marked approximate, known
  after the fact (see :meth:`YFinanceVendor.events`).
* **Option chains**: ``Ticker.options`` and ``Ticker.option_chain`` are today's quotes only, so a chain is
  answered for a trade date within ``LIVE_PROFILE_DAYS`` of today and refused (VendorError) before; the
  expiry read is the first at least a week out.
* **Macro series** are not Yahoo's: FRED's, through ALFRED vintages (:mod:`graph.data.fred`), when the vendor
  is given a FRED client (``FRED_API_KEY``); without one ``macro_source`` is None.
* **Rate limits / network errors**: every Yahoo call goes through
  :meth:`YFinanceVendor._retry` (bounded retries, exponential backoff); after
  the last try a :class:`VendorError` with a human reason is raised, never a
  raw exception. Transient failures always raise (never an empty answer), so
  a cache in front of this vendor never stores an outage as "no data".

Tickers are Yahoo symbols and pass through untouched apart from ``strip`` and
upper-casing (Yahoo symbols are case-insensitive): ``0700.HK``, ``600519.SS``,
``VOD.L``, ``7203.T``, ``^GSPC``, ``BRK-B``, ``EURUSD=X``.

This module fetches (with the retries); reading Yahoo's answers is
:mod:`graph.data.yahoo_parsing`, the StockTwits and Reddit feeds
:mod:`graph.data.social_feeds`, the values inside any feed's answer
:mod:`graph.data.feed_values`.
"""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, TypeVar

import pandas as pd
import yfinance as yf
from yfinance.exceptions import YFRateLimitError

from graph.core import clock
from graph.core.assets import AssetClass, classify
from graph.data.feed_values import _short, _text
from graph.data.fred import FredClient
from graph.data.social_feeds import (
    REDDIT_SEARCH_URL,
    STOCKTWITS_TIMEOUT_S,
    STOCKTWITS_URL,
    fetch_json,
    parse_reddit,
    parse_stocktwits,
)
from graph.data.vendor import (
    ANNUAL_FILING_LAG,
    QUARTER_FILING_LAG,
    Event,
    NewsItem,
    Observation,
    OptionChain,
    Post,
    StatementKind,
    UnknownSymbol,
    VendorError,
    abandoned,
    answered_in_part,
)
from graph.data.yahoo_parsing import (
    SOURCE,
    action_events,
    calendar_events,
    crypto_facts,
    earnings_date_events,
    fund_facts,
    fund_operations_expense,
    index_facts,
    live_ratios,
    merged_events,
    nearest_expiry,
    option_chain_of,
    parse_grades,
    parse_news,
    price_frame,
    statement_frame,
    static_profile,
    top_holdings,
)

LIVE_PROFILE_DAYS = 5  # .info ratios are "now": only trusted this close to today
MACRO_TICKERS = ("^GSPC", "SPY")

RATE_LIMITED = "rate limited by Yahoo Finance; try again in a minute"

# Yahoo symbols: letters, digits and . - = ^ (e.g. ^GSPC, BRK-B, EURUSD=X, 0700.HK).
_SYMBOL_RE = re.compile(r"^[A-Z0-9^][A-Z0-9.\-=^&]{0,19}$")

_STATEMENT_ATTRS: dict[str, tuple[str, str]] = {
    # kind: (quarterly attribute, annual fallback attribute)
    "income": ("quarterly_income_stmt", "income_stmt"),
    "balance": ("quarterly_balance_sheet", "balance_sheet"),
    "cashflow": ("quarterly_cashflow", "cashflow"),
}


def _transient_errors() -> tuple[type[BaseException], ...]:
    """Exception types worth retrying: timeouts and dropped connections."""
    kinds: list[type[BaseException]] = [TimeoutError, ConnectionError]
    try:
        import requests

        kinds += [requests.exceptions.ConnectionError, requests.exceptions.Timeout]
    except ImportError:  # pragma: no cover - requests ships with yfinance
        pass
    try:
        from curl_cffi.curl import CurlError

        kinds.append(CurlError)  # network-level failures of yfinance's HTTP client
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)


TRANSIENT_ERRORS = _transient_errors()

T = TypeVar("T")


def _symbol(ticker: str) -> str:
    symbol = (ticker or "").strip().upper()
    if not _SYMBOL_RE.match(symbol):
        raise UnknownSymbol(f"unknown ticker {ticker!r}")
    return symbol


# --------------------------------------------------------------------------
# The vendor
# --------------------------------------------------------------------------


class YFinanceVendor:
    """Live data from Yahoo Finance; see the module docstring for the caveats.

    Everything that touches the outside world is injectable for tests:
    ``sleep`` (backoff), ``today`` (the live-profile window), ``fetch``
    (the StockTwits and Reddit HTTP GET). ``yf.Ticker`` is looked up at call time, so a
    test can monkeypatch ``graph.data.yfinance_vendor.yf.Ticker``.
    """

    name = SOURCE
    label = "Yahoo Finance (yfinance)"

    def __init__(
        self,
        *,
        retries: int = 3,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        today: Callable[[], date] = clock.today,
        fetch: Callable[[str, float], object] = fetch_json,
        social_timeout_s: float = STOCKTWITS_TIMEOUT_S,
        fred: FredClient | None = None,
    ) -> None:
        self.retries = max(1, int(retries))
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._today = today
        self._fetch = fetch
        self.social_timeout_s = social_timeout_s
        self.fred = fred

    @property
    def macro_source(self) -> str | None:
        """FRED's label when a FRED client was given (FRED_API_KEY), else None: no macro data."""
        return self.fred.label if self.fred is not None else None

    # ---- plumbing ---------------------------------------------------------

    def _retry(self, fn: Callable[[], T], what: str) -> T:
        """Call ``fn`` with bounded retries on rate limits and network errors.

        Waits ``backoff_s * 2**attempt`` between tries (1 s, 2 s, ... by
        default). Non-transient errors are not retried; every failure leaves
        as a :class:`VendorError` with a human reason.
        """
        last: BaseException | None = None
        for attempt in range(self.retries):
            if attempt:
                self._sleep(self.backoff_s * 2 ** (attempt - 1))
            if abandoned():  # the tool's time limit passed (or the run stopped): no more tries
                raise VendorError(f"Yahoo Finance gave no answer for {what} in time")
            try:
                return fn()
            except VendorError:
                raise
            except YFRateLimitError as exc:
                last = exc
            except TRANSIENT_ERRORS as exc:
                last = exc
            except Exception as exc:  # yfinance parsing errors, bad symbols, ...
                raise VendorError(f"Yahoo Finance error for {what}: {_short(exc)}") from exc
        if isinstance(last, YFRateLimitError):
            raise VendorError(RATE_LIMITED) from last
        raise VendorError(f"Yahoo Finance unreachable: {_short(last) if last else 'no answer'}") from last

    def _get(self, symbol: str, attribute: str) -> Any:
        """``yf.Ticker(symbol).<attribute>`` (a property fetch) with retries."""
        return self._retry(lambda: getattr(yf.Ticker(symbol), attribute), f"{symbol} {attribute}")

    # ---- prices -----------------------------------------------------------

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        symbol = _symbol(ticker)
        raw = self._retry(
            # yfinance's ``end`` is exclusive, ours inclusive.
            lambda: yf.Ticker(symbol).history(start=start, end=end + timedelta(days=1),
                                              interval="1d", auto_adjust=False, actions=False),
            f"{symbol} prices",
        )
        return price_frame(raw, symbol, start, end)

    # ---- profile ----------------------------------------------------------

    def profile(self, ticker: str, as_of: date) -> dict:
        """Name/sector/industry always; ratios only if ``as_of`` is near today.

        ``Ticker.info`` holds *current* values (market cap, P/E, margins, ...).
        For an ``as_of`` more than ``LIVE_PROFILE_DAYS`` before today those
        would be look-ahead, so they are returned as ``None``. Units follow
        the vendor contract: margins/growth/yield as fractions and
        ``debt_to_equity`` as a plain ratio (Yahoo's ``debtToEquity`` is in
        percent, so it is divided by 100). Yahoo's ``dividendYield`` is now in
        percent too; the yield is taken as ``dividendRate / price`` when both
        are known, else ``dividendYield / 100``.
        """
        symbol = _symbol(ticker)
        info = self._get(symbol, "info")
        if not isinstance(info, dict):
            info = {}
        profile = static_profile(info, symbol)
        kind = classify(symbol, info.get("quoteType"))
        if kind is not AssetClass.EQUITY:
            profile["asset_class"] = kind.value
            if not profile["name"]:
                profile["name"] = _text(info.get("name"))
        if as_of < self._today() - timedelta(days=LIVE_PROFILE_DAYS):
            return profile  # a past analysis: today's ratios would leak the future
        if kind is AssetClass.EQUITY:
            profile.update(live_ratios(info))
        else:  # no P/E, margins or growth for what is not a company, though Yahoo sends a fund's P/E
            profile.update(self._class_facts(symbol, kind, info), live_ratios=True)
        return profile

    def _class_facts(self, symbol: str, kind: AssetClass, info: dict) -> dict[str, Any]:
        """Today's figures of a fund (with ``funds_data``'s holdings), a coin or an index (yahoo_parsing.py)."""
        if kind is AssetClass.FUND:
            funds = self._get(symbol, "funds_data")
            holdings = self._retry(lambda: getattr(funds, "top_holdings", None), f"{symbol} top holdings")
            operations = self._retry(lambda: getattr(funds, "fund_operations", None), f"{symbol} fund operations")
            return fund_facts(info, top_holdings(holdings), fund_operations_expense(operations, symbol))
        if kind is AssetClass.CRYPTO:
            return crypto_facts(info)
        if kind is AssetClass.INDEX:
            return index_facts(info)
        return {}

    # ---- asset class ------------------------------------------------------

    def asset_class(self, ticker: str) -> AssetClass:
        """Yahoo's own ``quoteType`` (EQUITY, ETF, MUTUALFUND, INDEX, CRYPTOCURRENCY, CURRENCY, FUTURE,
        OPTION) from ``Ticker.info``; the symbol's reading when Yahoo sends none it knows."""
        symbol = _symbol(ticker)
        info = self._get(symbol, "info")
        return classify(symbol, info.get("quoteType") if isinstance(info, dict) else None)

    # ---- statements -------------------------------------------------------

    def statements(self, ticker: str, as_of: date, kind: StatementKind) -> pd.DataFrame:
        """Quarterly statement (annual if Yahoo has no quarters) filed by ``as_of``.

        Filing dates are estimated as period end + 45 days (quarters) or + 90
        days (annual) and stored in ``attrs[FILED_ATTR]``.
        """
        symbol = _symbol(ticker)
        if kind not in _STATEMENT_ATTRS:
            raise VendorError(f"unknown statement kind {kind!r}")
        quarterly, annual = _STATEMENT_ATTRS[kind]
        raw, lag, period = self._get(symbol, quarterly), QUARTER_FILING_LAG, "quarterly"
        if not isinstance(raw, pd.DataFrame) or raw.empty:
            raw, lag, period = self._get(symbol, annual), ANNUAL_FILING_LAG, "annual"
        if not isinstance(raw, pd.DataFrame) or raw.empty:
            raise VendorError(f"no {kind} statement for {symbol} on Yahoo Finance")
        return statement_frame(raw, as_of, lag, period)

    # ---- news -------------------------------------------------------------

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        """Yahoo news dated in [start, end]. Yahoo serves recent news only."""
        symbol = _symbol(ticker)
        return parse_news(self._get(symbol, "news"), start, end)

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        """News of broad-market tickers (S&P 500, SPY) merged and deduped."""
        raw: list = []
        errors: list[VendorError] = []
        for symbol in MACRO_TICKERS:
            try:
                items = self._get(symbol, "news")
            except VendorError as exc:
                errors.append(exc)
                continue
            raw.extend(items if isinstance(items, list) else [])
        if errors and len(errors) == len(MACRO_TICKERS):
            raise errors[0]
        if errors:
            answered_in_part()  # one index's news only: shown, not cached
        return parse_news(raw, start, end)

    # ---- social -----------------------------------------------------------

    def _social_feed(self, url: str, parse: Callable[[object, date, date], list[Post]],
                     start: date, end: date) -> list[Post]:
        """Fetch and parse one feed; every failure is a VendorError."""
        try:
            payload = self._fetch(url, self.social_timeout_s)
        except VendorError:
            raise
        except Exception as exc:  # HTTPError 403/404/429, URLError, timeout, bad JSON, ...
            raise VendorError(f"social feed unreachable: {_short(exc)}") from exc
        return parse(payload, start, end)

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        """StockTwits and Reddit posts in [start, end], merged, newest first.

        See the module docstring: one feed answering is enough; when neither
        yields a post and one of them failed, the VendorError names both.
        """
        symbol = _symbol(ticker)
        feeds = (
            ("stocktwits", STOCKTWITS_URL.format(symbol=urllib.parse.quote(symbol, safe="")), parse_stocktwits),
            ("reddit", REDDIT_SEARCH_URL.format(query=urllib.parse.quote_plus(f"${symbol} OR {symbol}")),
             parse_reddit),
        )
        posts: list[Post] = []
        reasons: list[str] = []
        failed = False
        for name, url, parse in feeds:
            try:
                found = self._social_feed(url, parse, start, end)
            except VendorError as exc:
                failed = True
                reasons.append(f"{name}: {str(exc).removeprefix('social feed unreachable: ')}")
                continue
            posts.extend(found)
            if not found:
                reasons.append(f"{name}: no posts from {start} to {end}")
        if not posts and failed:
            raise VendorError("social feeds unreachable: " + "; ".join(reasons))
        if failed:
            answered_in_part()  # one feed's posts only: shown, not cached
        return sorted(posts, key=lambda p: p.created, reverse=True)

    # ---- the calendar -----------------------------------------------------

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        """Earnings, dividends and splits in [as_of, until] (yahoo_parsing.py reads them).

        Yahoo keeps no history of its calendar: ``Ticker.calendar`` is today's. So a date is exact only when
        the trade date is within ``LIVE_PROFILE_DAYS`` of today; for a past trade date the dates come from
        what happened (``get_earnings_dates``' reported rows, ``dividends``' ex-dates, ``splits``), each
        marked approximate, known after the fact. No earnings for what is not a company; a fund's
        distributions are its dividends; nothing for an index, a coin, a pair or a future. A rate limit or
        an outage raises (never cached as "nothing scheduled"); an earnings page Yahoo cannot serve is
        left out when the calendar answered.
        """
        symbol = _symbol(ticker)
        kind = classify(symbol)
        if kind not in (AssetClass.EQUITY, AssetClass.FUND) or until < as_of:
            return []
        today = self._today()
        current = as_of >= today - timedelta(days=LIVE_PROFILE_DAYS)
        calendar = self._get(symbol, "calendar") if current else None
        earnings: object = None
        if kind is AssetClass.EQUITY:
            try:
                earnings = self._retry(lambda: yf.Ticker(symbol).get_earnings_dates(limit=12),
                                       f"{symbol} earnings dates")
            except VendorError:
                if not current:
                    raise
        dividends = self._get(symbol, "dividends")
        splits = self._get(symbol, "splits") if kind is AssetClass.EQUITY else None
        return merged_events(calendar_events(calendar, as_of, until, current),
                             earnings_date_events(earnings, as_of, until, today),
                             action_events(dividends, "dividend", as_of, until),
                             action_events(splits, "split", as_of, until))

    # ---- options and macro --------------------------------------------------

    def option_chain(self, ticker: str, as_of: date) -> OptionChain | None:
        """Today's chain of the first expiry at least a week out (yahoo_parsing.py reads it); None when the
        symbol lists no options. Yahoo keeps no past chains: an older trade date is refused."""
        symbol = _symbol(ticker)
        if as_of < self._today() - timedelta(days=LIVE_PROFILE_DAYS):
            raise VendorError(f"option chains are not historical: Yahoo quotes {symbol}'s for today only")
        expiry = nearest_expiry(self._get(symbol, "options"), as_of)
        if expiry is None:
            return None
        raw = self._retry(lambda: yf.Ticker(symbol).option_chain(expiry.isoformat()), f"{symbol} option chain")
        return option_chain_of(raw, expiry, self._today())

    def macro_series(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        """FRED's ``series_id`` as published on ``as_of`` (graph/data/fred.py); no client: no macro data."""
        if self.fred is None:
            raise VendorError("no macro data: FRED_API_KEY is not set")
        return self.fred.observations(series_id, start, as_of)

    # ---- analyst grades ---------------------------------------------------

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        """Grade changes on or before ``as_of``, newest first.

        Missing or malformed data gives ``[]``. Rate limits and outages still
        raise :class:`VendorError` (the tool treats grades as optional anyway),
        so a cache never keeps an outage as "no grades".
        """
        symbol = _symbol(ticker)
        return parse_grades(self._get(symbol, "upgrades_downgrades"), as_of)
