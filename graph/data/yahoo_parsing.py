"""Yahoo Finance's answers read into the vendor contract (:mod:`graph.data.vendor`), one reader
per kind: news items (old flat and new nested shapes), a price history, a profile from
``Ticker.info``, a statement with its estimated filing dates, analyst grade changes, the calendar
(earnings, dividends, splits), an option chain. Fetching
them, with retries, is :class:`graph.data.yfinance_vendor.YFinanceVendor`'s part."""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pandas as pd

from graph.data.feed_values import _parse_time, _text, _url
from graph.data.vendor import (
    FILED_ATTR,
    OHLCV_COLUMNS,
    Event,
    NewsItem,
    OptionChain,
    UnknownSymbol,
    VendorError,
    finite,
)

SOURCE = "yfinance"


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


def _to_naive_index(index: pd.Index) -> pd.DatetimeIndex:
    """Any date-like index -> tz-naive (exchange-local wall time) midnight dates."""
    stamps = pd.DatetimeIndex(pd.to_datetime(index))
    if stamps.tz is not None:
        stamps = stamps.tz_localize(None)  # keeps the exchange's local wall time
    return stamps.normalize()


def price_frame(raw: Any, symbol: str, start: date, end: date) -> pd.DataFrame:
    """``Ticker.history`` -> the OHLCV frame: lower-case columns, tz-naive dates, [start, end]."""
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


def static_profile(info: dict, symbol: str) -> dict[str, Any]:
    """The fields of ``Ticker.info`` that hold for any date (name, sector, industry, currency),
    with every ratio ``None`` (:func:`live_ratios` has them)."""
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
    return profile


def live_ratios(info: dict) -> dict[str, Any]:
    """Today's ratios from ``Ticker.info``, in the vendor contract's units (see
    :meth:`graph.data.yfinance_vendor.YFinanceVendor.profile`)."""
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
    return dict(
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


def statement_frame(raw: pd.DataFrame, as_of: date, lag: timedelta, period: str) -> pd.DataFrame:
    """A statement's periods (newest first) whose estimated filing (period end + ``lag``) is on
    or before ``as_of``; the filing dates in ``attrs[FILED_ATTR]``."""
    frame = raw.apply(pd.to_numeric, errors="coerce")
    frame.columns = _to_naive_index(frame.columns)
    cutoff = pd.Timestamp(as_of)
    keep = [c for c in frame.columns if c <= cutoff and c + lag <= cutoff and frame[c].notna().any()]
    keep = sorted(set(keep), reverse=True)
    frame = frame.loc[:, ~frame.columns.duplicated()][keep].astype(float)
    frame.columns.name = "period"
    frame.attrs = {FILED_ATTR: {c: c + lag for c in keep}, "source": SOURCE, "period": period}
    return frame


def parse_grades(frame: Any, as_of: date) -> list[dict]:
    """``Ticker.upgrades_downgrades`` -> grade changes on or before ``as_of``, newest first;
    ``[]`` when it is missing or malformed."""
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


# ---- what is not a company (issue 37, point 3) -----------------------------------------------------------


def fund_operations_expense(operations: object, symbol: str) -> float | None:
    """``funds_data.fund_operations``'s "Annual Report Expense Ratio" for the fund (a fraction), when given."""
    if not isinstance(operations, pd.DataFrame) or "Annual Report Expense Ratio" not in operations.index:
        return None
    row = operations.loc["Annual Report Expense Ratio"]
    return finite(row.get(symbol, row.iloc[0] if len(row) else None))


def top_holdings(frame: object) -> list[dict[str, Any]]:
    """``funds_data.top_holdings``: index Symbol, columns Name and Holding Percent (a fraction) -> the vendor's
    ``holdings`` list, heaviest first."""
    if not isinstance(frame, pd.DataFrame) or frame.empty or "Holding Percent" not in frame.columns:
        return []
    out = [{"symbol": str(symbol), "name": _text(row.get("Name")), "weight": finite(row.get("Holding Percent"))}
           for symbol, row in frame.iterrows()]
    return sorted((h for h in out if h["weight"] is not None), key=lambda h: -h["weight"])


def fund_facts(info: dict, holdings: list[dict[str, Any]], operations_expense: float | None) -> dict[str, Any]:
    """A fund's live figures from ``Ticker.info`` (ETF or MUTUALFUND) and ``funds_data``. Yahoo's
    ``netExpenseRatio`` is in percent (0.0945 = 0.0945 %), ``annualReportExpenseRatio`` and ``funds_data``'s a
    fraction; ``yield`` is a fraction; the premium or discount is the price over the NAV."""
    net = finite(info.get("netExpenseRatio"))
    expense = net / 100 if net is not None else finite(info.get("annualReportExpenseRatio"))
    price = finite(info.get("regularMarketPrice")) or finite(info.get("previousClose"))
    nav = finite(info.get("navPrice"))
    return {
        "expense_ratio": expense if expense is not None else operations_expense,
        "total_assets": finite(info.get("totalAssets")),
        "nav_price": nav,
        "premium_discount": price / nav - 1 if price and nav else None,
        "fund_yield": finite(info.get("yield")),
        "category": _text(info.get("category")),
        "fund_family": _text(info.get("fundFamily")),
        "holdings": holdings,
    }


def crypto_facts(info: dict) -> dict[str, Any]:
    """A coin's live figures from ``Ticker.info`` (CRYPTOCURRENCY): market cap, supply, a day's traded value."""
    return {
        "market_cap": finite(info.get("marketCap")),
        "circulating_supply": finite(info.get("circulatingSupply")),
        "max_supply": finite(info.get("maxSupply")),
        "volume_24h": finite(info.get("volume24Hr")) or finite(info.get("volumeAllCurrencies")),
    }


def index_facts(info: dict) -> dict[str, Any]:
    """An index's level from ``Ticker.info`` (INDEX); Yahoo sends no breadth."""
    return {"level": finite(info.get("regularMarketPrice")) or finite(info.get("previousClose"))}


# ---- the calendar: earnings, dividends, splits (Vendor.events) ------------------------------

AFTER_THE_FACT = ("known after the fact: approximate as of the trade date (Yahoo's calendar is today's; "
                  "what was scheduled then is not kept)")
TODAYS_CALENDAR = "on Yahoo's calendar today, which may not be what was scheduled on the trade date"


def _day(value: object) -> date | None:
    """A calendar value (a date, a datetime, a Timestamp, tz-aware or not) as its exchange-local day."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        stamp = pd.Timestamp(value)
    except (TypeError, ValueError):
        return None
    if pd.isna(stamp):
        return None
    if stamp.tzinfo is not None:
        stamp = stamp.tz_localize(None)  # the wall time of Yahoo's zone: the exchange's (as _to_naive_index)
    return stamp.date()


def _ratio(value: object) -> str | None:
    """Yahoo's split factor (4.0 for 4-for-1, 0.1 for a 1-for-10 reverse split) as "4:1" / "1:10"."""
    factor = finite(value)
    if not factor or factor <= 0:
        return None
    return f"{factor:g}:1" if factor >= 1 else f"1:{1 / factor:g}"


def calendar_events(calendar: object, as_of: date, until: date, current: bool) -> list[Event]:
    """``Ticker.calendar`` (``{"Earnings Date": [date, ...], "Ex-Dividend Date": date, "Dividend Date": date,
    ...}``): the dates in [as_of, until]. It is today's calendar: exact only when the trade date is
    ``current`` (today or nearly), else approximate; two earnings dates are Yahoo's unconfirmed range."""
    if not isinstance(calendar, dict):
        return []
    out: list[Event] = []
    earnings = calendar.get("Earnings Date")
    days = [d for d in map(_day, earnings if isinstance(earnings, (list, tuple)) else [earnings]) if d]
    if days:
        first, last = min(days), max(days)
        ranged = last != first
        basis = (f"Yahoo gives a range ({first} to {last}): the date is not confirmed" if ranged else
                 "" if current else TODAYS_CALENDAR)
        out.append(Event("earnings", first, None, ranged or not current, basis, source=SOURCE))
    for key, kind in (("Ex-Dividend Date", "ex_dividend"), ("Dividend Date", "dividend")):
        if (day := _day(calendar.get(key))) is not None:
            out.append(Event(kind, day, None, not current, "" if current else TODAYS_CALENDAR,  # type: ignore[arg-type]
                             source=SOURCE))
    return [e for e in out if as_of <= e.day <= until]


def earnings_date_events(frame: object, as_of: date, until: date, today: date) -> list[Event]:
    """``get_earnings_dates()`` (index: tz-aware "Earnings Date" stamps; columns "EPS Estimate",
    "Reported EPS", "Surprise(%)"), past and future rows: the dates in [as_of, until]. A date already past
    today for a trade date before it is known after the fact; one still ahead is today's schedule."""
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        return []
    out = []
    for stamp in frame.index:
        day = _day(stamp)
        if day is None or not as_of <= day <= until:
            continue
        basis = AFTER_THE_FACT if day <= today else TODAYS_CALENDAR
        out.append(Event("earnings", day, None, True, basis, source=SOURCE))
    return out


def action_events(series: object, kind: str, as_of: date, until: date) -> list[Event]:
    """``Ticker.dividends`` (ex-dates -> amount) or ``Ticker.splits`` (dates -> factor): Yahoo's record of
    what happened, so a date in [as_of, until] is known after the fact."""
    if not isinstance(series, pd.Series) or series.empty:
        return []
    out = []
    for stamp, value in series.items():
        day = _day(stamp)
        if day is None or not as_of <= day <= until:
            continue
        if kind == "split":
            out.append(Event("split", day, None, True, AFTER_THE_FACT, ratio=_ratio(value), source=SOURCE))
        else:
            out.append(Event("ex_dividend", day, None, True, AFTER_THE_FACT, amount=finite(value), source=SOURCE))
    return out


def merged_events(*groups: list[Event]) -> list[Event]:
    """One event per kind and day, soonest first; an exact date wins over an approximate one, the first
    group's over a later one's (a dividend's amount kept from whichever has it)."""
    chosen: dict[tuple[str, date], Event] = {}
    for event in (e for group in groups for e in group):
        key = (event.kind, event.day)
        held = chosen.get(key)
        if held is None or (held.approximate and not event.approximate):
            amount = event.amount if event.amount is not None else (held.amount if held else None)
            chosen[key] = replace(event, amount=amount)
        elif held.amount is None and event.amount is not None:
            chosen[key] = replace(held, amount=event.amount)
    return sorted(chosen.values(), key=lambda e: (e.day, e.kind))


# ---- option chains -----------------------------------------------------------

OPTION_COLUMNS = ("strike", "openInterest", "volume", "impliedVolatility")


def nearest_expiry(expiries: object, as_of: date, min_days: int = 7) -> date | None:
    """Of ``Ticker.options`` (expiry dates as "YYYY-MM-DD"), the first at least ``min_days`` after ``as_of``
    (a weekly about to expire says little about positioning), else the last one listed; None when none."""
    days = sorted(d for d in (_day(e) for e in expiries or ()) if d is not None and d >= as_of) \
        if isinstance(expiries, (list, tuple)) else []
    if not days:
        return None
    return next((d for d in days if (d - as_of).days >= min_days), days[-1])


def _option_frame(frame: object) -> pd.DataFrame:
    """A side of the chain with the columns the desk reads, numbers or NaN (Yahoo leaves some empty)."""
    if not isinstance(frame, pd.DataFrame) or frame.empty or "strike" not in frame.columns:
        return pd.DataFrame(columns=list(OPTION_COLUMNS))
    out = pd.DataFrame({c: pd.to_numeric(frame[c], errors="coerce") if c in frame.columns else float("nan")
                        for c in OPTION_COLUMNS})
    return out.dropna(subset=["strike"]).reset_index(drop=True)


def option_chain_of(raw: object, expiry: date, quoted: date) -> OptionChain:
    """``Ticker.option_chain(expiry)`` (a named tuple: calls, puts, underlying) as an :class:`OptionChain`."""
    underlying = getattr(raw, "underlying", None)
    price = underlying.get("regularMarketPrice") if isinstance(underlying, dict) else None
    return OptionChain(expiry, _option_frame(getattr(raw, "calls", None)), _option_frame(getattr(raw, "puts", None)),
                       finite(price), quoted, SOURCE)
