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
* **Rate limits / network errors**: every Yahoo call goes through
  :meth:`YFinanceVendor._retry` (bounded retries, exponential backoff); after
  the last try a :class:`VendorError` with a human reason is raised, never a
  raw exception. Transient failures always raise (never an empty answer), so
  a cache in front of this vendor never stores an outage as "no data".

Tickers are Yahoo symbols and pass through untouched apart from ``strip`` and
upper-casing (Yahoo symbols are case-insensitive): ``0700.HK``, ``600519.SS``,
``VOD.L``, ``7203.T``, ``^GSPC``, ``BRK-B``, ``EURUSD=X``.
"""

from __future__ import annotations

import json
import math
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import pandas as pd
import yfinance as yf
from yfinance.exceptions import YFRateLimitError

from graph.data.tone import headline_tone
from graph.data.vendor import (
    ANNUAL_FILING_LAG,
    FILED_ATTR,
    OHLCV_COLUMNS,
    QUARTER_FILING_LAG,
    NewsItem,
    Post,
    Sentiment,
    StatementKind,
    UnknownSymbol,
    VendorError,
    finite,
)

SOURCE = "yfinance"
NEWS_TZ = ZoneInfo("America/New_York")  # news/post times are shown in US/Eastern
LIVE_PROFILE_DAYS = 5  # .info ratios are "now": only trusted this close to today
MACRO_TICKERS = ("^GSPC", "SPY")
STOCKTWITS_URL = "https://api.stocktwits.com/api/2/streams/symbol/{symbol}.json"
STOCKTWITS_TIMEOUT_S = 5.0
REDDIT_SEARCH_URL = "https://www.reddit.com/search.json?q={query}&sort=new&limit=100&t=month"
REDDIT_TEXT_CHARS = 280  # a post's title plus the start of its body, enough for tone
# Reddit asks API clients for a unique, descriptive User-Agent (generic or
# browser-like ones are throttled hardest); StockTwits accepts it as well.
USER_AGENT = "trading-desk/0.1 (social sentiment reader; python urllib)"

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


# --------------------------------------------------------------------------
# Small parsing helpers
# --------------------------------------------------------------------------


def _symbol(ticker: str) -> str:
    symbol = (ticker or "").strip().upper()
    if not _SYMBOL_RE.match(symbol):
        raise UnknownSymbol(f"unknown ticker {ticker!r}")
    return symbol


def _text(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def _local_naive(moment: datetime) -> datetime:
    """Aware -> US/Eastern naive; naive values are taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(NEWS_TZ).replace(tzinfo=None)


def _parse_time(value: object) -> datetime | None:
    """Epoch seconds or an ISO-8601 string ("2024-05-01T12:00:00Z") -> naive US/Eastern."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            return None
        return _local_naive(datetime.fromtimestamp(value, tz=UTC))
    if isinstance(value, str) and value.strip():
        try:
            return _local_naive(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _url(value: object) -> str | None:
    if isinstance(value, dict):
        return _text(value.get("url"))
    return _text(value)


def parse_news_item(raw: object) -> tuple[str | None, NewsItem] | None:
    """One Yahoo news item (old flat or new nested shape) -> (id, NewsItem).

    Old: ``{"uuid", "title", "publisher", "link", "providerPublishTime": epoch}``.
    New: ``{"id", "content": {"title", "summary", "pubDate", "provider":
    {"displayName"}, "canonicalUrl": {"url"}, "clickThroughUrl": {"url"}}}``.
    Items without a title or a publication time are skipped (None).
    """
    if not isinstance(raw, dict):
        return None
    content = raw.get("content")
    if isinstance(content, dict):
        title = _text(content.get("title"))
        published = _parse_time(content.get("pubDate") or content.get("displayTime"))
        provider = content.get("provider")
        publisher = _text(provider.get("displayName")) if isinstance(provider, dict) else None
        summary = _text(content.get("summary")) or _text(content.get("description")) or ""
        url = _url(content.get("canonicalUrl")) or _url(content.get("clickThroughUrl"))
        item_id = _text(raw.get("id")) or _text(content.get("id"))
    else:
        title = _text(raw.get("title"))
        published = _parse_time(raw.get("providerPublishTime"))
        publisher = _text(raw.get("publisher"))
        summary = _text(raw.get("summary")) or ""
        url = _text(raw.get("link"))
        item_id = _text(raw.get("uuid")) or _text(raw.get("id"))
    if not title or published is None:
        return None
    item = NewsItem(published=published, title=title, publisher=publisher or "Yahoo Finance",
                    summary=summary, url=url)
    return item_id, item


def parse_news(raw_items: object, start: date, end: date) -> list[NewsItem]:
    """Parse, keep items dated in [start, end], dedupe, newest first."""
    seen: set[str] = set()
    items: list[NewsItem] = []
    for raw in raw_items if isinstance(raw_items, list) else []:
        parsed = parse_news_item(raw)
        if parsed is None:
            continue
        item_id, item = parsed
        if not start <= item.published.date() <= end:
            continue
        key = item_id or item.url or item.title.lower()
        if key in seen:
            continue
        seen.add(key)
        items.append(item)
    return sorted(items, key=lambda n: n.published, reverse=True)


def parse_stocktwits(payload: object, start: date, end: date) -> list[Post]:
    """StockTwits ``streams/symbol`` JSON -> posts in [start, end], newest first.

    Shape: ``{"response": {"status": 200}, "messages": [{"id", "body",
    "created_at": "2024-05-01T13:45:12Z", "entities": {"sentiment":
    {"basic": "Bullish"} | null}}, ...]}``.
    """
    if not isinstance(payload, dict):
        raise VendorError("social feed unreachable: unexpected response")
    status = (payload.get("response") or {}).get("status")
    if status not in (None, 200):
        errors = payload.get("errors") or []
        detail = errors[0].get("message") if errors and isinstance(errors[0], dict) else f"status {status}"
        raise VendorError(f"social feed unreachable: {detail}")
    messages = payload.get("messages")
    if not isinstance(messages, list):
        raise VendorError("social feed unreachable: no messages in response")
    posts = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        text = _text(message.get("body"))
        created = _parse_time(message.get("created_at"))
        if not text or created is None or not start <= created.date() <= end:
            continue
        sentiment = ((message.get("entities") or {}).get("sentiment") or {}).get("basic")
        label = str(sentiment).lower()
        mood: Sentiment | None = "bullish" if label == "bullish" else "bearish" if label == "bearish" else None
        posts.append(Post(created=created, text=text, sentiment=mood, source="stocktwits"))
    return sorted(posts, key=lambda p: p.created, reverse=True)


_REDDIT_GONE = {"[removed]", "[deleted]"}


def _reddit_text(title: str, body: str | None) -> str:
    text = f"{title} -- {' '.join(body.split())}" if body and body not in _REDDIT_GONE else title
    return text if len(text) <= REDDIT_TEXT_CHARS else text[: REDDIT_TEXT_CHARS - 3].rstrip() + "..."


def parse_reddit(payload: object, start: date, end: date) -> list[Post]:
    """Reddit ``search.json`` Listing -> posts in [start, end], newest first.

    Shape: ``{"kind": "Listing", "data": {"children": [{"kind": "t3", "data":
    {"id", "title", "selftext", "created_utc": 1714571112.0, "subreddit",
    "permalink"}}, ...]}}``. An error answers ``{"message": "Too Many
    Requests", "error": 429}``. Sentiment comes from the keyword tone of the
    title and body (None when no tone word matches); the source is
    ``"reddit r/<subreddit>"``.
    """
    if not isinstance(payload, dict):
        raise VendorError("social feed unreachable: unexpected response")
    if payload.get("error") is not None:
        detail = _text(payload.get("message")) or "error"
        raise VendorError(f"social feed unreachable: {detail} ({payload.get('error')})")
    listing = payload.get("data")
    children = listing.get("children") if isinstance(listing, dict) else None
    if payload.get("kind") != "Listing" or not isinstance(children, list):
        raise VendorError("social feed unreachable: no listing in response")
    seen: set[str] = set()
    posts = []
    for child in children:
        data = child.get("data") if isinstance(child, dict) else None
        if not isinstance(data, dict):
            continue
        title = _text(data.get("title"))
        created = _parse_time(data.get("created_utc"))
        if not title or created is None or not start <= created.date() <= end:
            continue
        key = _text(data.get("id")) or _text(data.get("permalink")) or title
        if key in seen:
            continue
        seen.add(key)
        body = _text(data.get("selftext"))
        tone = headline_tone(f"{title} {body or ''}")
        mood: Sentiment | None = "bullish" if tone > 0 else "bearish" if tone < 0 else None
        subreddit = _text(data.get("subreddit"))
        source = f"reddit r/{subreddit}" if subreddit else "reddit"
        posts.append(Post(created=created, text=_reddit_text(title, body), sentiment=mood, source=source))
    return sorted(posts, key=lambda p: p.created, reverse=True)


def fetch_json(url: str, timeout: float = STOCKTWITS_TIMEOUT_S) -> object:
    """GET ``url`` and decode JSON (the default, injectable, social fetcher)."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read().decode("utf-8"))


def _short(exc: BaseException, limit: int = 160) -> str:
    """``Type: message`` without curl's trailing "See https://..." advice, capped."""
    message = re.split(r"\.?\s+See https?://", str(exc), maxsplit=1)[0].strip()
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _to_naive_index(index: pd.Index) -> pd.DatetimeIndex:
    """Any date-like index -> tz-naive (exchange-local wall time) midnight dates."""
    stamps = pd.DatetimeIndex(pd.to_datetime(index))
    if stamps.tz is not None:
        stamps = stamps.tz_localize(None)  # keeps the exchange's local wall time
    return stamps.normalize()


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
        today: Callable[[], date] = date.today,
        fetch: Callable[[str, float], object] = fetch_json,
        social_timeout_s: float = STOCKTWITS_TIMEOUT_S,
    ) -> None:
        self.retries = max(1, int(retries))
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._today = today
        self._fetch = fetch
        self.social_timeout_s = social_timeout_s

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
        if raw is None or len(raw) == 0:
            raise UnknownSymbol(f"no price data for {symbol} (unknown or delisted ticker?)")
        frame = raw.rename(columns=lambda c: str(c).strip().lower())
        missing = [c for c in OHLCV_COLUMNS if c not in frame.columns]
        if missing:
            raise VendorError(f"Yahoo Finance price data for {symbol} lacks {', '.join(missing)}")
        frame = frame[list(OHLCV_COLUMNS)].apply(pd.to_numeric, errors="coerce")
        frame.index = _to_naive_index(frame.index)
        frame.index.name = "date"
        frame = frame[~frame.index.duplicated(keep="last")].sort_index().dropna(subset=["close"])
        frame = frame[(frame.index >= pd.Timestamp(start)) & (frame.index <= pd.Timestamp(end))].copy()
        frame["volume"] = frame["volume"].fillna(0).astype("int64")
        frame.attrs["source"] = SOURCE
        return frame

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
        name = _text(info.get("longName")) or _text(info.get("shortName"))
        if not name and not info.get("quoteType"):
            raise VendorError(f"no profile for {symbol} (unknown ticker?)")
        profile: dict[str, Any] = {
            "name": name,
            "sector": _text(info.get("sector")),
            "industry": _text(info.get("industry")),
            "currency": _text(info.get("financialCurrency")) or _text(info.get("currency")),
            "price": None,
            "market_cap": None,
            "shares_outstanding": None,
            "pe": None,
            "forward_pe": None,
            "pb": None,
            "dividend_yield": None,
            "beta": None,
            "profit_margin": None,
            "debt_to_equity": None,
            "revenue_growth": None,
            "source": SOURCE,
            "live_ratios": False,
        }
        if as_of < self._today() - timedelta(days=LIVE_PROFILE_DAYS):
            return profile  # a past analysis: today's ratios would leak the future

        price = finite(info.get("currentPrice")) or finite(info.get("regularMarketPrice"))
        rate = finite(info.get("dividendRate"))
        dividend_yield: float | None
        if rate is not None and price:
            dividend_yield = rate / price
        elif (percent := finite(info.get("dividendYield"))) is not None:
            dividend_yield = percent / 100
        else:
            dividend_yield = finite(info.get("trailingAnnualDividendYield"))
        debt_to_equity = finite(info.get("debtToEquity"))
        profile.update(
            price=price,
            market_cap=finite(info.get("marketCap")),
            shares_outstanding=finite(info.get("sharesOutstanding")),
            pe=finite(info.get("trailingPE")),
            forward_pe=finite(info.get("forwardPE")),
            pb=finite(info.get("priceToBook")),
            dividend_yield=dividend_yield,
            beta=finite(info.get("beta")),
            profit_margin=finite(info.get("profitMargins")),
            debt_to_equity=None if debt_to_equity is None else debt_to_equity / 100,
            revenue_growth=finite(info.get("revenueGrowth")),
            live_ratios=True,
        )
        return profile

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

        frame = raw.apply(pd.to_numeric, errors="coerce")
        frame.columns = _to_naive_index(frame.columns)
        cutoff = pd.Timestamp(as_of)
        keep = [c for c in frame.columns if c <= cutoff and c + lag <= cutoff and frame[c].notna().any()]
        keep = sorted(set(keep), reverse=True)
        frame = frame.loc[:, ~frame.columns.duplicated()][keep].astype(float)
        frame.columns.name = "period"
        frame.attrs = {FILED_ATTR: {c: c + lag for c in keep}, "source": SOURCE, "period": period}
        return frame

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
        return sorted(posts, key=lambda p: p.created, reverse=True)

    # ---- analyst grades ---------------------------------------------------

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        """Grade changes on or before ``as_of``, newest first.

        Missing or malformed data gives ``[]``. Rate limits and outages still
        raise :class:`VendorError` (the tool treats grades as optional anyway),
        so a cache never keeps an outage as "no grades".
        """
        symbol = _symbol(ticker)
        frame = self._get(symbol, "upgrades_downgrades")
        if not isinstance(frame, pd.DataFrame) or frame.empty:
            return []
        try:
            frame = frame.reset_index()
            date_column = "GradeDate" if "GradeDate" in frame.columns else frame.columns[0]
            stamps = pd.to_datetime(frame[date_column], errors="coerce")
            if getattr(stamps.dt, "tz", None) is not None:
                stamps = stamps.dt.tz_localize(None)
            frame = frame.assign(_day=stamps.dt.normalize())
            frame = frame[frame["_day"].notna() & (frame["_day"] <= pd.Timestamp(as_of))]
            frame = frame.sort_values("_day", ascending=False, kind="stable")
            grades = []
            for _, row in frame.iterrows():
                grades.append(
                    {
                        "date": row["_day"].date(),
                        "firm": _text(row.get("Firm")),
                        "to_grade": _text(row.get("ToGrade")),
                        "from_grade": _text(row.get("FromGrade")),
                        "action": _text(row.get("Action")),
                        "source": SOURCE,
                    }
                )
            return grades
        except (KeyError, TypeError, ValueError, AttributeError):
            return []
