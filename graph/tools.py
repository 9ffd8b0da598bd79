"""The analysts' data tools, bound to one ticker and one trade date.

No look-ahead, twice over:

1. Structural: ``make_toolkit`` closes over the ticker and trade date, and no
   tool takes a date argument, so a model cannot ask for anything later.
2. Defensive: every row and item a vendor returns is filtered again to
   ``<= trade_date`` before it is shown or counted, so a sloppy vendor (or a
   live API that ignores ``end``) still cannot leak the future.

Each tool answers ``(content, artifact)``: ``content`` is a compact text table
for the model, ``artifact`` a structured dict that the offline demo model
reads. The artifact shape is a contract::

    {"tool": str, "source": vendor.name, "as_of": "YYYY-MM-DD",
     "figures": {label: float | int | str | None}, "items": [str, ...]}

plus ``"error": reason`` (with empty figures/items) when there is no data.
Figures are never invented: missing inputs give ``None``, failures give the
error shape.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from typing import Any, Literal

import pandas as pd
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field, field_validator

from graph.data.indicators import compute_indicators
# The keyword tone scorer lives in graph.data.tone (the live vendor uses it too);
# it is re-exported here because callers know it as part of the tools.
from graph.data.tone import NEGATIVE_WORDS, POSITIVE_WORDS, headline_tone, news_tone  # noqa: F401
from graph.personas import ANALYST_KINDS
from graph.data.vendor import FILED_ATTR, QUARTER_FILING_LAG, NewsItem, Post, Vendor, VendorError, finite


VENDOR_TIMEOUT_S = 30.0
MAX_PRICE_ROWS = 15
MAX_HEADLINES = 10
MAX_POSTS_SHOWN = 10
MAX_GRADES_SHOWN = 5
STATEMENT_PERIODS_SHOWN = 4
# History fetched for indicators: ~500 sessions so SMA 200 and the EMAs behind
# MACD are warmed up well before the trade date.
INDICATOR_HISTORY_DAYS = 730

Figures = dict[str, float | int | str | None]

# Indicator labels that go into the artifact (Boll Middle is shown in the
# text only; it is the 20-day SMA and the contract leaves it out).
INDICATOR_FIGURES = (
    "SMA 50", "SMA 200", "EMA 10", "MACD", "MACD Signal", "MACD Hist",
    "RSI 14", "Boll Upper", "Boll Lower", "ATR 14", "VWMA 20",
)
Artifact = dict[str, Any]


class NoData(Exception):
    """Raised inside a tool body when the vendor answered but had nothing."""


# --------------------------------------------------------------------------
# Small formatting helpers
# --------------------------------------------------------------------------


def _r2(value: object) -> float | None:
    number = finite(value)
    return None if number is None else round(number, 2)


def _pct(fraction: object) -> float | None:
    """0.1234 -> 12.34 (vendors give fractions, figures show percent)."""
    number = finite(fraction)
    return None if number is None else round(number * 100, 2)


def _whole(value: object) -> int | None:
    number = finite(value)
    return None if number is None else int(round(number))


def _human(value: object) -> str:
    """12345678 -> '12.35M'; keeps tables short for the model."""
    number = finite(value)
    if number is None:
        return "n/a"
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(number) >= size:
            return f"{number / size:.2f}{suffix}"
    return f"{number:.2f}"


def _show(value: object) -> str:
    return "n/a" if value is None else str(value)


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = [" | ".join(header)]
    lines += [" | ".join(_show(cell) for cell in row) for row in rows]
    return "\n".join(lines)


def _day(moment: date | datetime) -> date:
    return moment.date() if isinstance(moment, datetime) else moment


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, int(value)))


# --------------------------------------------------------------------------
# Vendor access and the second look-ahead guard
# --------------------------------------------------------------------------


async def _call(fn: Callable[..., Any], *args: object) -> Any:
    """Run a sync vendor method off the event loop, with a time limit."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(fn, *args), VENDOR_TIMEOUT_S)
    except TimeoutError:
        raise VendorError("timeout") from None


def _cut_prices(frame: pd.DataFrame | None, as_of: date) -> pd.DataFrame:
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


def _in_window(moment: date | datetime, start: date, end: date) -> bool:
    return start <= _day(moment) <= end


def _in_window_news(news: list[NewsItem] | None, start: date, end: date) -> list[NewsItem]:
    """Headlines dated in [start, end] (the second look-ahead guard), newest first."""
    return sorted((n for n in news or [] if _in_window(n.published, start, end)),
                  key=lambda n: n.published, reverse=True)


def _filing_dates(frame: pd.DataFrame) -> dict[pd.Timestamp, pd.Timestamp]:
    """Filing date per statement column, estimated when the vendor omits it."""
    given = {pd.Timestamp(k): pd.Timestamp(v) for k, v in frame.attrs.get(FILED_ATTR, {}).items()}
    dates = {}
    for column in frame.columns:
        period = pd.Timestamp(column)
        dates[period] = given.get(period, period + QUARTER_FILING_LAG)
    return dates


def _cut_statement(frame: pd.DataFrame | None, as_of: date) -> tuple[pd.DataFrame, dict]:
    """Only periods filed on or before ``as_of``, newest first."""
    if frame is None or frame.empty:
        return pd.DataFrame(), {}
    filed = _filing_dates(frame)
    cutoff = pd.Timestamp(as_of)
    keep = [c for c in frame.columns if pd.Timestamp(c) <= cutoff and filed[pd.Timestamp(c)] <= cutoff]
    keep.sort(key=pd.Timestamp, reverse=True)
    return frame[keep], {pd.Timestamp(c): filed[pd.Timestamp(c)] for c in keep}


# --------------------------------------------------------------------------
# Figure computations (pure functions, easy to test)
# --------------------------------------------------------------------------


def _close_on_or_before(frame: pd.DataFrame, day: date) -> float | None:
    """Close of the last session on or before ``day``; None if history is too short."""
    rows = frame[frame.index <= pd.Timestamp(day)]
    return float(rows["close"].iloc[-1]) if len(rows) else None


def _change_pct(now: float, then: float | None) -> float | None:
    return None if then in (None, 0) else _r2((now / then - 1) * 100)


def price_figures(frame: pd.DataFrame, as_of: date) -> Figures:
    """Headline price figures from a frame already cut at ``as_of``."""
    close = float(frame["close"].iloc[-1])
    year = frame[frame.index > pd.Timestamp(as_of - timedelta(days=365))]
    return {
        "Close": _r2(close),
        "Change 1M %": _change_pct(close, _close_on_or_before(frame, as_of - timedelta(days=30))),
        "Change 3M %": _change_pct(close, _close_on_or_before(frame, as_of - timedelta(days=91))),
        "52W High": _r2(year["high"].max()),
        "52W Low": _r2(year["low"].min()),
        "Avg Volume 20D": _whole(frame["volume"].iloc[-20:].mean()),
    }


def sample_rows(frame: pd.DataFrame, limit: int = MAX_PRICE_ROWS) -> pd.DataFrame:
    """At most ``limit`` rows: weekly closes, thinned further if needed.

    The latest session is always kept, since it is the one that matters most.
    """
    if len(frame) > limit:
        frame = frame.groupby(frame.index.to_period("W-FRI")).tail(1)
    if len(frame) > limit:
        step = math.ceil(len(frame) / limit)
        frame = frame.iloc[::-1].iloc[::step].iloc[::-1]
    return frame


def _first_row(frame: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in frame.index), None)


_REVENUE_ROWS = ("Total Revenue", "Revenue", "Operating Revenue")
_NET_INCOME_ROWS = ("Net Income", "Net Income Common Stockholders", "Net Income From Continuing Operations")
_FCF_ROWS = ("Free Cash Flow",)


def statement_figures(frame: pd.DataFrame) -> Figures:
    """Latest-period figures from a filed-only, newest-first statement frame."""
    latest = frame.iloc[:, 0]
    figures: Figures = {}
    for label, names in (("Revenue", _REVENUE_ROWS), ("Net Income", _NET_INCOME_ROWS), ("Free Cash Flow", _FCF_ROWS)):
        row = _first_row(frame, names)
        if row is not None:
            figures[label] = _whole(latest[row])
    if "Free Cash Flow" not in figures and {"Operating Cash Flow", "Capital Expenditure"} <= set(frame.index):
        figures["Free Cash Flow"] = _whole(latest["Operating Cash Flow"] + latest["Capital Expenditure"])
    figures["Period"] = pd.Timestamp(frame.columns[0]).strftime("%Y-%m-%d")
    return figures


def revenue_growth_yoy(income: pd.DataFrame) -> float | None:
    """Latest quarter's revenue vs the same quarter a year earlier, as a fraction."""
    row = _first_row(income, _REVENUE_ROWS)
    if row is None or income.shape[1] < 2:
        return None
    periods = [pd.Timestamp(c) for c in income.columns]
    latest = periods[0]
    for column, period in zip(income.columns, periods):
        if 350 <= (latest - period).days <= 380:
            then = finite(income.loc[row, column])
            now = finite(income.loc[row, income.columns[0]])
            if now is None or not then:
                return None
            return now / then - 1
    return None


def social_figures(posts: list[Post]) -> Figures:
    bullish = sum(post.sentiment == "bullish" for post in posts)
    bearish = sum(post.sentiment == "bearish" for post in posts)
    labelled = bullish + bearish
    return {
        "Posts": len(posts),
        "Bullish %": _r2(100 * bullish / len(posts)),
        "Bearish %": _r2(100 * bearish / len(posts)),
        # Net mood of posts that take a side: +1 all bullish, -1 all bearish.
        "Social Score": _r2((bullish - bearish) / labelled) if labelled else 0.0,
    }


# --------------------------------------------------------------------------
# Tool assembly
# --------------------------------------------------------------------------

# A tool body answers (text, figures, items), optionally with more artifact keys (a 4th item).
Body = Callable[..., Awaitable[tuple[Any, ...]]]


def _reason(exc: Exception) -> str:
    if isinstance(exc, (VendorError, NoData)):
        return str(exc) or type(exc).__name__
    return f"unexpected {type(exc).__name__}: {exc}"


def _guarded_tool(
    name: str,
    description: str,
    args_schema: type[BaseModel],
    vendor: Vendor,
    as_of: date,
    body: Body,
) -> StructuredTool:
    """Wrap a body into a tool that always answers, with data or "no data"."""
    as_of_text = as_of.isoformat()

    async def run(**kwargs: Any) -> tuple[str, Artifact]:
        base = {"tool": name, "source": vendor.name, "as_of": as_of_text}
        try:
            text, figures, items, *more = await body(**kwargs)
        except Exception as exc:  # any failure must reach the model as "no data"
            reason = _reason(exc)
            return f"no data: {reason}", {**base, "error": reason, "figures": {}, "items": []}
        header = f"Source: {vendor.label} · as of {as_of_text}"
        return f"{header}\n{text}", {**base, "figures": figures, "items": items, **(more[0] if more else {})}

    return StructuredTool.from_function(
        coroutine=run,
        name=name,
        description=description,
        args_schema=args_schema,
        response_format="content_and_artifact",
    )


class NoArgs(BaseModel):
    """This tool takes no arguments."""


class PriceHistoryArgs(BaseModel):
    lookback_days: int = Field(90, description="Calendar days of daily prices to show (5-730).")


class LookbackArgs(BaseModel):
    lookback_days: int = Field(7, description="Calendar days back from the trade date (1-90).")


class StatementArgs(BaseModel):
    statement: Literal["income", "balance", "cashflow"] = Field(
        "income", description="Which quarterly statement to read."
    )

    @field_validator("statement", mode="before")
    @classmethod
    def _accept_common_spellings(cls, value: object) -> object:
        # Models often write "cash_flow" or "balance sheet"; map them rather than fail.
        if value is None:
            return "income"
        if isinstance(value, str):
            key = re.sub(r"[^a-z]", "", value.lower())
            return _STATEMENT_ALIASES.get(key, value)
        return value


_STATEMENT_ALIASES = {
    "income": "income", "balance": "balance", "cashflow": "cashflow",
    "incomestatement": "income", "financials": "income", "pl": "income", "profitandloss": "income",
    "balancesheet": "balance", "cashflowstatement": "cashflow", "cashflows": "cashflow",
}


# ---- market ---------------------------------------------------------------


def _market_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def price_history(lookback_days: int = 90) -> tuple[str, Figures, list[str], dict[str, int]]:
        lookback = _clamp(lookback_days, 5, 730)
        # Always fetch a year+ so 3M change and the 52-week range are complete.
        start = as_of - timedelta(days=max(lookback, 400))
        frame = _cut_prices(await _call(vendor.ohlcv, ticker, start, as_of), as_of)
        if frame.empty:
            raise NoData(f"no price history for {ticker} on or before {as_of}")
        window = frame[frame.index > pd.Timestamp(as_of - timedelta(days=lookback))]
        shown = sample_rows(window)
        rows = [
            [ts.strftime("%Y-%m-%d"), _r2(r.open), _r2(r.high), _r2(r.low), _r2(r.close), _whole(r.volume)]
            for ts, r in shown.iterrows()
        ]
        figures = price_figures(frame, as_of)
        items = [f"{row[0]} close {row[4]} volume {row[5]}" for row in rows]
        text = "\n".join(
            [
                f"{ticker} daily prices, last {lookback} days: {len(shown)} of {len(window)} sessions shown"
                f" (last session of each week when sampled). Last bar {frame.index[-1]:%Y-%m-%d}.",
                _table(["date", "open", "high", "low", "close", "volume"], rows),
                "Summary: " + "; ".join(f"{k} {_show(v)}" for k, v in figures.items()),
            ]
        )
        # The window shown is the one the chart of the decision will draw.
        return text, figures, items, {"window_days": lookback}

    async def indicators() -> tuple[str, Figures, list[str]]:
        start = as_of - timedelta(days=INDICATOR_HISTORY_DAYS)
        frame = _cut_prices(await _call(vendor.ohlcv, ticker, start, as_of), as_of)
        if frame.empty:
            raise NoData(f"no price history for {ticker} on or before {as_of}")
        values = compute_indicators(frame)
        rows = [
            [ind.label, _r2(ind.value), ", ".join(_show(_r2(v)) for _, v in ind.recent), ind.note or ""]
            for ind in values.values()
        ]
        figures: Figures = {label: _r2(values[label].value) for label in INDICATOR_FIGURES}
        items = [f"{ind.label}: {ind.note}" for ind in values.values() if ind.note]
        text = "\n".join(
            [
                f"{ticker} technical indicators from {len(frame)} daily bars up to {frame.index[-1]:%Y-%m-%d}"
                f" (recent = last {len(next(iter(values.values())).recent)} sessions, oldest first).",
                _table(["indicator", "value", "recent", "note"], rows),
                f"Close {_r2(frame['close'].iloc[-1])}.",
            ]
        )
        return text, figures, items

    return [
        _guarded_tool(
            "get_price_history",
            f"Daily OHLCV prices for {ticker} up to {as_of} (weekly-sampled table), plus close, "
            "1M/3M % change, 52-week high/low and 20-day average volume.",
            PriceHistoryArgs, vendor, as_of, price_history,
        ),
        _guarded_tool(
            "get_indicators",
            f"Technical indicators for {ticker} as of {as_of}: SMA 50/200, EMA 10, MACD, RSI 14, "
            "Bollinger bands (20), ATR 14, VWMA 20, each with its last 5 values.",
            NoArgs, vendor, as_of, indicators,
        ),
    ]


# ---- social ---------------------------------------------------------------

SOCIAL_PROXY = "news headlines"


def _post_line(post: Post) -> str:
    mood = post.sentiment or "unlabelled"
    return f"{_day(post.created):%Y-%m-%d} {post.source} [{mood}]: {post.text}"


def _news_line(item: NewsItem) -> str:
    return f"{_day(item.published):%Y-%m-%d} {item.publisher}: {item.title}"


def _social_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    def from_posts(posts: list[Post], start: date) -> tuple[str, Figures, list[str]]:
        figures = social_figures(posts)
        by_day: dict[date, list[int]] = {}
        for post in posts:
            counts = by_day.setdefault(_day(post.created), [0, 0, 0])
            counts[0] += 1
            counts[1] += post.sentiment == "bullish"
            counts[2] += post.sentiment == "bearish"
        daily = [[f"{day:%Y-%m-%d}", *counts] for day, counts in sorted(by_day.items())]
        items = [_post_line(post) for post in posts[:MAX_POSTS_SHOWN]]
        text = "\n".join(
            [
                f"{ticker} social posts {start} to {as_of}: " + "; ".join(f"{k} {v}" for k, v in figures.items()),
                _table(["date", "posts", "bullish", "bearish"], daily),
                f"Latest {len(items)} posts:",
                *items,
            ]
        )
        return text, figures, items

    def from_headlines(news: list[NewsItem], start: date, social_reason: str) -> tuple[str, Figures, list[str]]:
        """The proxy: no post was found, so read the tone of the company's headlines."""
        tone = news_tone(n.title for n in news)
        figures: Figures = {
            "Posts": 0,
            "Bullish %": None,
            "Bearish %": None,
            "Social Score": tone,
            "Proxy": SOCIAL_PROXY,
        }
        items = [_news_line(n) for n in news[:MAX_HEADLINES]]
        text = "\n".join(
            [
                f"no social feed answered ({social_reason}); using news-headline tone as a proxy.",
                f"{ticker} headlines {start} to {as_of}: {len(news)} found, headline tone {tone}"
                f" (-1..1, keyword score; reported as Social Score); latest {len(items)}:",
                *items,
            ]
        )
        return text, figures, items

    async def social_sentiment(lookback_days: int = 7) -> tuple[str, Figures, list[str]]:
        lookback = _clamp(lookback_days, 1, 90)
        start = as_of - timedelta(days=lookback - 1)
        try:
            posts: list[Post] = await _call(vendor.social_posts, ticker, start, as_of)
        except Exception as exc:  # any feed failure: fall back to the headlines
            posts, social_reason = [], _reason(exc)
        else:
            posts = sorted((p for p in posts or [] if _in_window(p.created, start, as_of)),
                           key=lambda p: p.created, reverse=True)
            social_reason = f"no social posts about {ticker} from {start} to {as_of}"
        if posts:
            return from_posts(posts, start)

        try:
            news = _in_window_news(await _call(vendor.news, ticker, start, as_of), start, as_of)
        except Exception as exc:
            news_reason = _reason(exc)
        else:
            if news:
                return from_headlines(news, start, social_reason)
            news_reason = f"no {ticker} headlines from {start} to {as_of}"
        raise NoData(f"no social feed answered ({social_reason}) and no news headlines to fall back on"
                     f" ({news_reason})")

    return [
        _guarded_tool(
            "get_social_sentiment",
            f"Social-media posts about {ticker} up to {as_of}: counts, bullish/bearish share, "
            "a -1..1 social score and the latest posts. When no social feed answers, the score is the "
            "tone of the company's news headlines instead (figure Proxy says so).",
            LookbackArgs, vendor, as_of, social_sentiment,
        )
    ]


# ---- news -----------------------------------------------------------------


def _headline_tool(
    name: str, description: str, tone_label: str, fetch: Callable[[date], Awaitable[list[NewsItem]]],
    vendor: Vendor, as_of: date, subject: str,
) -> StructuredTool:
    async def headlines(lookback_days: int = 7) -> tuple[str, Figures, list[str]]:
        lookback = _clamp(lookback_days, 1, 90)
        start = as_of - timedelta(days=lookback - 1)
        news = _in_window_news(await fetch(start), start, as_of)
        if not news:
            raise NoData(f"no {subject} headlines from {start} to {as_of}")
        figures: Figures = {"Headlines": len(news), tone_label: news_tone(n.title for n in news)}
        items = [_news_line(n) for n in news[:MAX_HEADLINES]]
        text = "\n".join(
            [
                f"{subject} headlines {start} to {as_of}: {len(news)} found, "
                f"{tone_label.lower()} {figures[tone_label]} (-1..1, keyword score); latest {len(items)}:",
                *items,
            ]
        )
        return text, figures, items

    return _guarded_tool(name, description, LookbackArgs, vendor, as_of, headlines)


def _news_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def company(start: date) -> list[NewsItem]:
        return await _call(vendor.news, ticker, start, as_of)

    async def macro(start: date) -> list[NewsItem]:
        return await _call(vendor.macro_news, start, as_of)

    return [
        _headline_tool(
            "get_company_news",
            f"Recent news headlines about {ticker} up to {as_of}, with a -1..1 tone score.",
            "News Tone", company, vendor, as_of, ticker,
        ),
        _headline_tool(
            "get_macro_news",
            f"Recent market-wide and macroeconomic headlines up to {as_of}, with a -1..1 tone score.",
            "Macro Tone", macro, vendor, as_of, "Macro",
        ),
    ]


# ---- fundamentals ---------------------------------------------------------


async def _optional(fn: Callable[..., Any], *args: object, default: Any = None) -> Any:
    """Secondary data: a failure here should not sink the whole tool."""
    try:
        return await _call(fn, *args)
    except Exception:
        return default


def _grade_line(grade: dict) -> str:
    moved = f"{grade.get('from_grade')} -> {grade.get('to_grade')}" if grade.get("from_grade") else grade.get("to_grade")
    return f"{_day(grade['date']):%Y-%m-%d} {grade.get('firm')}: {moved} ({grade.get('action')})"


def _fundamental_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def fundamentals() -> tuple[str, Figures, list[str]]:
        profile = await _call(vendor.profile, ticker, as_of)
        if not profile or all(v is None for v in profile.values()):
            raise NoData(f"no company profile for {ticker}")
        income, _ = _cut_statement(await _optional(vendor.statements, ticker, as_of, "income"), as_of)
        # Prefer growth from statements filed by the trade date; a live
        # profile's growth figure is "as of now" and would leak the future.
        growth = revenue_growth_yoy(income) if not income.empty else None
        if growth is None:
            growth = profile.get("revenue_growth")
        figures: Figures = {
            "Market Cap": _whole(profile.get("market_cap")),
            "P/E": _r2(profile.get("pe")),
            "Forward P/E": _r2(profile.get("forward_pe")),
            "P/B": _r2(profile.get("pb")),
            "Profit Margin %": _pct(profile.get("profit_margin")),
            "Debt/Equity": _r2(profile.get("debt_to_equity")),
            "Dividend Yield %": _pct(profile.get("dividend_yield")),
            "Beta": _r2(profile.get("beta")),
            "Revenue Growth YoY %": _pct(growth),
        }
        grades = await _optional(vendor.recommendations, ticker, as_of, default=[]) or []
        grades = [g for g in grades if "date" in g and _day(g["date"]) <= as_of]
        grades.sort(key=lambda g: _day(g["date"]), reverse=True)
        items = [f"{key.title()}: {profile[key]}" for key in ("name", "sector", "industry") if profile.get(key)]
        items += [f"Grade {_grade_line(g)}" for g in grades[:MAX_GRADES_SHOWN]]
        shown = {k: (_human(v) if k == "Market Cap" else _show(v)) for k, v in figures.items()}
        text = "\n".join(
            [
                f"{ticker} fundamentals as of {as_of}.",
                *items,
                _table(["metric", "value"], [[k, v] for k, v in shown.items()]),
            ]
        )
        return text, figures, items

    async def financial_statements(statement: str = "income") -> tuple[str, Figures, list[str]]:
        raw = await _call(vendor.statements, ticker, as_of, statement)
        frame, filed = _cut_statement(raw, as_of)
        if frame.empty:
            raise NoData(f"no {statement} statement for {ticker} filed on or before {as_of}")
        figures = statement_figures(frame)
        filed_on = f"{filed[pd.Timestamp(frame.columns[0])]:%Y-%m-%d}"
        items = [f"Filed: {filed_on}"]
        items += [f"{line}: {_human(value)}" for line, value in frame.iloc[:, 0].items()]
        shown = frame.iloc[:, :STATEMENT_PERIODS_SHOWN]
        header = ["line item"] + [f"{pd.Timestamp(c):%Y-%m-%d}" for c in shown.columns]
        rows = [[line, *(_human(v) for v in values)] for line, values in shown.iterrows()]
        text = "\n".join(
            [
                f"{ticker} quarterly {statement} statement, periods filed on or before {as_of} (newest first);"
                f" latest period {figures['Period']} filed {filed_on}.",
                _table(header, rows),
            ]
        )
        return text, figures, items

    return [
        _guarded_tool(
            "get_fundamentals",
            f"Company profile and valuation for {ticker} as of {as_of}: market cap, P/E, forward P/E, P/B, "
            "profit margin, debt/equity, dividend yield, beta, revenue growth and recent analyst grades.",
            NoArgs, vendor, as_of, fundamentals,
        ),
        _guarded_tool(
            "get_financial_statements",
            f"Quarterly income, balance-sheet or cash-flow statement for {ticker}, only periods filed "
            f"on or before {as_of}.",
            StatementArgs, vendor, as_of, financial_statements,
        ),
    ]


# --------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------

_BUILDERS: dict[str, Callable[[Vendor, str, date], list[BaseTool]]] = {
    "market": _market_tools,
    "social": _social_tools,
    "news": _news_tools,
    "fundamentals": _fundamental_tools,
}


def make_toolkit(vendor: Vendor, ticker: str, trade_date: date) -> dict[str, list[BaseTool]]:
    """Tools per analyst kind, all bound to ``ticker`` and ``trade_date``."""
    as_of = _day(trade_date)
    symbol = ticker.strip().upper()
    return {kind: _BUILDERS[kind](vendor, symbol, as_of) for kind in ANALYST_KINDS}
