"""A deterministic, offline market-data vendor for demos and tests.

Everything is derived from the ticker string through SHA-256 (never Python's
salted ``hash()``), so the same ticker gives the same data in every process.

Prices are one long daily series per ticker starting at ``SERIES_START``
and generated once (then cached): the value on a date is a pure function of
(ticker, date) and never depends on which window a caller asks for. Sessions
are NYSE trading days (:mod:`graph.calendar`): weekends and exchange holidays
such as Good Friday, July 4th or Christmas have no bar, no headline and no
post. Statements, news, posts and grades are derived from that price path
(tone follows the recent move), so the analysts see a coherent story.

All of it is fiction and labelled so: ``source == "synthetic"`` everywhere.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache

import numpy as np
import pandas as pd

from graph.core.trading_days import is_trading_day, nyse_holidays
from graph.data.vendor import (
    FILED_ATTR,
    NewsItem,
    Post,
    Sentiment,
    StatementKind,
    VendorError,
)

SOURCE = "synthetic"
SERIES_START = date(1990, 1, 1)
TRADING_DAYS = 252
MARKET_KEY = "^MARKET"  # pseudo-ticker whose path drives macro headlines

_TICKER_RE = re.compile(r"^[A-Z0-9][A-Z0-9.\-=^]{0,11}$")


# --------------------------------------------------------------------------
# Deterministic randomness
# --------------------------------------------------------------------------


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()


def _seed(*parts: object) -> int:
    return int.from_bytes(_digest(*parts)[:8], "big")


def _unit(*parts: object) -> float:
    """A uniform draw in [0, 1) that depends only on ``parts``.

    Used for per-item choices (a headline on a given day, a filing date) so
    each item is independent of the range it was requested in.
    """
    return _seed(*parts) / 2**64


def _between(lo: float, hi: float, *parts: object) -> float:
    return lo + (hi - lo) * _unit(*parts)


def _pick(options: list | tuple, *parts: object):
    return options[int(_unit(*parts) * len(options))]


def _normalise(ticker: str) -> str:
    symbol = (ticker or "").strip().upper()
    if not _TICKER_RE.match(symbol):
        raise VendorError(f"unknown ticker {ticker!r}")
    return symbol


# --------------------------------------------------------------------------
# Per-ticker traits
# --------------------------------------------------------------------------

# (sector, industries, typical net margin range, typical beta range)
_SECTORS: tuple[tuple[str, tuple[str, ...], tuple[float, float], tuple[float, float]], ...] = (
    ("Technology", ("Semiconductors", "Software - Infrastructure", "Consumer Electronics"), (0.10, 0.32), (1.0, 1.7)),
    ("Healthcare", ("Drug Manufacturers", "Medical Devices", "Biotechnology"), (0.05, 0.25), (0.6, 1.1)),
    ("Financial Services", ("Banks - Diversified", "Asset Management", "Insurance"), (0.12, 0.30), (0.8, 1.3)),
    ("Consumer Cyclical", ("Internet Retail", "Auto Manufacturers", "Restaurants"), (0.02, 0.12), (1.0, 1.6)),
    ("Consumer Defensive", ("Beverages", "Household Products", "Discount Stores"), (0.03, 0.20), (0.4, 0.8)),
    ("Energy", ("Oil & Gas Integrated", "Oil & Gas E&P"), (0.04, 0.18), (0.8, 1.4)),
    ("Industrials", ("Aerospace & Defense", "Railroads", "Specialty Machinery"), (0.05, 0.16), (0.8, 1.2)),
    ("Communication Services", ("Internet Content", "Telecom Services", "Entertainment"), (0.05, 0.28), (0.7, 1.3)),
    ("Utilities", ("Utilities - Regulated Electric",), (0.08, 0.15), (0.3, 0.6)),
    ("Basic Materials", ("Specialty Chemicals", "Gold", "Steel"), (0.03, 0.15), (0.9, 1.4)),
)
_NAME_SUFFIXES = ("Corp.", "Inc.", "Holdings", "Group", "Technologies", "Industries")


@dataclass(frozen=True)
class _Traits:
    """Constants of one synthetic company, all drawn from its ticker."""

    name: str
    sector: str
    industry: str
    beta: float
    start_price: float
    long_run_growth: float  # annual log drift of the price anchor
    base_vol: float  # typical annualised volatility
    base_volume: float  # typical daily shares traded
    annual_revenue0: float  # revenue scale when the price equals start_price
    base_margin: float
    gross_uplift: float
    asset_turnover: float
    equity_ratio: float
    debt_to_equity: float
    capex_ratio: float
    shares: float
    dividend_yield: float | None


@lru_cache(maxsize=256)
def _traits(symbol: str) -> _Traits:
    sector, industries, margins, betas = _pick(_SECTORS, symbol, "sector")
    start_price = _between(8.0, 80.0, symbol, "p0")
    revenue0 = 10 ** _between(8.7, 10.8, symbol, "revenue")
    price_to_sales = _between(0.8, 7.0, symbol, "ps")
    pays_dividend = _unit(symbol, "div?") < 0.55
    return _Traits(
        name=f"{symbol} {_pick(_NAME_SUFFIXES, symbol, 'suffix')}",
        sector=sector,
        industry=_pick(industries, symbol, "industry"),
        beta=round(_between(*betas, symbol, "beta"), 2),
        start_price=start_price,
        long_run_growth=_between(-0.01, 0.08, symbol, "growth"),
        base_vol=_between(0.18, 0.50, symbol, "vol"),
        base_volume=10 ** _between(5.8, 7.8, symbol, "volume"),
        annual_revenue0=revenue0,
        base_margin=_between(*margins, symbol, "margin"),
        gross_uplift=_between(0.15, 0.45, symbol, "gross"),
        asset_turnover=_between(0.4, 1.6, symbol, "turnover"),
        equity_ratio=_between(0.25, 0.65, symbol, "equity"),
        debt_to_equity=_between(0.05, 1.8, symbol, "debt"),
        capex_ratio=_between(0.02, 0.12, symbol, "capex"),
        # Chosen so the starting market cap is a plausible multiple of sales.
        shares=revenue0 * price_to_sales / start_price,
        dividend_yield=_between(0.005, 0.045, symbol, "yield") if pays_dividend else None,
    )


# --------------------------------------------------------------------------
# Price path
# --------------------------------------------------------------------------


def _regime_schedule(rng: np.random.Generator, n: int, base_vol: float) -> tuple[np.ndarray, np.ndarray]:
    """Daily drift and volatility arrays made of random-length regimes.

    Regimes are drawn one after another from their own stream, so the first
    k days' regimes are the same however long the series is.
    """
    mu = np.empty(n)
    sigma = np.empty(n)
    i = 0
    while i < n:
        length = int(rng.integers(40, 260))
        annual_mu = rng.normal(0.03, 0.55)
        annual_sigma = base_vol * rng.uniform(0.6, 1.6)
        mu[i : i + length] = annual_mu / TRADING_DAYS
        sigma[i : i + length] = annual_sigma / math.sqrt(TRADING_DAYS)
        i += length
    return mu, sigma


def _log_deviation(mu: np.ndarray, sigma: np.ndarray, shocks: np.ndarray) -> np.ndarray:
    """Regime-driven random walk with weak pull back to the long-run anchor.

    The pull (about a three-year half-life) keeps 35 years of compounding in
    a plausible price range while leaving months-long trends clearly visible.
    """
    pull = 1.0 / 1000.0
    keep = 1.0 - pull
    step = mu + sigma * shocks
    x = np.empty(len(step))
    level = 0.0
    # level[i] = keep * level[i-1] + step[i], solved a block at a time with numpy (a Python loop
    # over 9,000+ days cost ~100 ms per new ticker); blocks start at fixed offsets, so a date's
    # value never depends on how long the series is.
    for b0 in range(0, len(step), _BLOCK):
        u = step[b0:b0 + _BLOCK]
        powers = keep ** np.arange(len(u))
        x[b0:b0 + len(u)] = keep * powers * level + powers * np.cumsum(u / powers)
        level = x[b0 + len(u) - 1]
    return x


_BLOCK = 256


@lru_cache(maxsize=8)
def _holiday_index(first_year: int, last_year: int) -> pd.DatetimeIndex:
    """NYSE full-day closures from ``first_year`` through ``last_year``."""
    days = sorted(d for year in range(first_year, last_year + 1) for d in nyse_holidays(year))
    return pd.DatetimeIndex(days, name="date")


# Tools call the vendor from worker threads, several at once for a new ticker; lru_cache does
# not stop them all generating the same series, so generation (and cache lookups) take turns.
_GENERATING = threading.RLock()


@lru_cache(maxsize=128)
def _daily_path(symbol: str, through_year: int) -> pd.DataFrame:
    """The whole OHLCV history of ``symbol`` from SERIES_START to year end.

    ``through_year`` is only part of the cache key (so a long-running process
    eventually extends the series); every stream below is consumed in order,
    so a date's values do not change when the series is made longer.

    Random draws are made on the plain weekday grid, then exchange holidays
    are dropped: the price keeps walking through a holiday (the next session
    shows two days' move, as after a real closure), and a date's values do
    not depend on how many holidays came before it.
    """
    traits = _traits(symbol)
    weekdays = pd.bdate_range(SERIES_START, date(through_year, 12, 31), name="date")
    n = len(weekdays)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(_seed(symbol, "path")).spawn(5)]
    regimes, returns, gaps, ranges, volumes = streams

    mu, sigma = _regime_schedule(regimes, n, traits.base_vol)
    deviation = _log_deviation(mu, sigma, returns.standard_normal(n))
    years = np.arange(n) / TRADING_DAYS
    close = traits.start_price * np.exp(traits.long_run_growth * years + deviation)
    gap_draws = gaps.standard_normal(n)
    # Shape (n, 2) so draws are consumed day by day (keeps the prefix stable).
    range_draws = ranges.standard_normal((n, 2))
    volume_draws = volumes.standard_normal(n)

    # Keep NYSE sessions only; every bar is built from the previous *session*.
    session = ~weekdays.isin(_holiday_index(SERIES_START.year, through_year))
    days = weekdays[session]
    close, sigma = close[session], sigma[session]
    gap_draws, range_draws, volume_draws = gap_draws[session], range_draws[session], volume_draws[session]

    prev_close = np.concatenate(([close[0]], close[:-1]))
    open_ = prev_close * np.exp(gap_draws * sigma * 0.3)
    spread = (np.abs(range_draws) * sigma[:, None] * 0.6 + 0.002).T
    high = np.maximum(open_, close) * np.exp(spread[0])
    low = np.minimum(open_, close) * np.exp(-spread[1])

    # Busier tape on big moves, plus day-to-day noise.
    move = np.abs(np.log(close / prev_close))
    volume = traits.base_volume * np.exp(0.3 * volume_draws) * (1.0 + 12.0 * move)

    frame = pd.DataFrame(
        {
            "open": np.round(open_, 2),
            "high": np.round(high, 2),
            "low": np.round(low, 2),
            "close": np.round(close, 2),
            "volume": volume.astype(np.int64),
        },
        index=days,
    ).clip(lower=0.01)
    # Rounding can nudge open/close past the wick; keep bars self-consistent.
    frame["high"] = frame[["open", "high", "close"]].max(axis=1)
    frame["low"] = frame[["open", "low", "close"]].min(axis=1)
    return frame


def _path(symbol: str) -> pd.DataFrame:
    with _GENERATING:
        return _daily_path(symbol, date.today().year)


def _clip_end(end: date) -> date:
    # The series is generated past today, but nothing after today "exists".
    return min(end, date.today())


def _close_series(symbol: str) -> pd.Series:
    return _path(symbol)["close"]


def _trailing_return(closes: pd.Series, day: pd.Timestamp, sessions: int) -> float:
    """Return over ``sessions`` bars ending on ``day`` (0.0 at the very start)."""
    i = closes.index.get_loc(day)
    j = max(0, i - sessions)
    return float(closes.iloc[i] / closes.iloc[j] - 1.0)


def _sessions(start: date, end: date) -> pd.DatetimeIndex:
    """NYSE trading days in [start, end] (the dates that have a bar)."""
    start = max(start, SERIES_START)
    end = _clip_end(end)
    if start > end:
        return pd.DatetimeIndex([], name="date")
    days = pd.bdate_range(start, end, name="date")
    return days[[is_trading_day(day.date()) for day in days]]


# --------------------------------------------------------------------------
# Quarterly fundamentals
# --------------------------------------------------------------------------

_INCOME_ROWS = ("Total Revenue", "Gross Profit", "Operating Income", "Net Income", "Diluted EPS")
_BALANCE_ROWS = (
    "Total Assets",
    "Total Liabilities Net Minority Interest",
    "Stockholders Equity",
    "Total Debt",
    "Cash And Cash Equivalents",
)
_CASHFLOW_ROWS = ("Operating Cash Flow", "Capital Expenditure", "Free Cash Flow")
_ROWS_BY_KIND: dict[str, tuple[str, ...]] = {
    "income": _INCOME_ROWS,
    "balance": _BALANCE_ROWS,
    "cashflow": _CASHFLOW_ROWS,
}
STATEMENT_QUARTERS = 8  # how many filed quarters a statements() call returns


def _quarter_figures(symbol: str, period_end: pd.Timestamp, avg_price: float, avg_year_ago: float) -> dict[str, float]:
    """One quarter's statement lines, driven by the price path.

    Revenue follows the quarter's average price (damped) and margins follow
    the year-on-year price move, so fundamentals tell the same story as the
    chart instead of contradicting it.
    """
    t = _traits(symbol)
    yoy = math.log(avg_price / avg_year_ago)

    revenue = t.annual_revenue0 / 4 * (avg_price / t.start_price) ** 0.7
    revenue *= 1 + 0.04 * math.sin(period_end.quarter * math.pi / 2)  # seasonality
    revenue *= math.exp(0.03 * (_unit(symbol, "rev", period_end.date()) - 0.5))
    margin = t.base_margin + 0.12 * yoy + 0.04 * (_unit(symbol, "margin", period_end.date()) - 0.5)
    margin = min(max(margin, -0.40), 0.60)
    net_income = revenue * margin

    assets = 4 * revenue / t.asset_turnover
    equity = assets * t.equity_ratio
    capex = -revenue * t.capex_ratio
    operating_cf = net_income + revenue * (0.05 + 0.04 * (_unit(symbol, "ocf", period_end.date()) - 0.5))
    return {
        "Total Revenue": revenue,
        "Gross Profit": revenue * min(max(margin + t.gross_uplift, 0.05), 0.90),
        "Operating Income": revenue * (margin + 0.04),
        "Net Income": net_income,
        "Diluted EPS": net_income / t.shares,
        "Total Assets": assets,
        "Total Liabilities Net Minority Interest": assets - equity,
        "Stockholders Equity": equity,
        "Total Debt": equity * t.debt_to_equity,
        "Cash And Cash Equivalents": assets * 0.08,
        "Operating Cash Flow": operating_cf,
        "Capital Expenditure": capex,
        "Free Cash Flow": operating_cf + capex,
    }


@lru_cache(maxsize=128)
def _quarters(symbol: str, through_year: int) -> pd.DataFrame:
    """All quarters (rows) with every line item plus the filing date."""
    closes = _daily_path(symbol, through_year)["close"]
    days, prices = closes.index.values, closes.to_numpy(dtype=float)
    running = np.concatenate(([0.0], np.cumsum(prices)))  # window means by differences, not slices

    def mean(lo: int, hi: int) -> float:
        return (running[hi] - running[lo]) / (hi - lo) if hi > lo else float("nan")

    ends = pd.date_range(SERIES_START, date(through_year, 12, 31), freq="QE")
    rows = {}
    for period_end in ends:
        q_start = period_end - pd.DateOffset(months=3) + pd.Timedelta(days=1)
        lo = days.searchsorted(q_start.to_datetime64(), "left")
        hi = days.searchsorted(period_end.to_datetime64(), "right")
        avg_price = mean(lo, hi)
        year_end = days.searchsorted((period_end - pd.DateOffset(years=1)).to_datetime64(), "right")
        avg_year_ago = mean(max(0, year_end - 63), year_end) if year_end else avg_price
        figures = _quarter_figures(symbol, period_end, avg_price, avg_year_ago)
        # Companies file roughly 30-45 days after the quarter closes.
        lag = 30 + int(_unit(symbol, "filed", period_end.date()) * 16)
        figures["filed"] = period_end + pd.Timedelta(days=lag)
        rows[period_end] = figures
    return pd.DataFrame.from_dict(rows, orient="index")


def _filed_quarters(symbol: str, as_of: date) -> pd.DataFrame:
    with _GENERATING:
        quarters = _quarters(symbol, date.today().year)
    return quarters[quarters["filed"] <= pd.Timestamp(_clip_end(as_of))]


# --------------------------------------------------------------------------
# Text templates (tone words match the keyword scorer in graph.data.tone)
# --------------------------------------------------------------------------

_NEWS_TEMPLATES = {
    "positive": (
        "{name} shares rally as investors cheer strong demand",
        "{ticker} stock climbs {move} this week on upbeat outlook",
        "Analysts upgrade {name} after record quarter momentum",
        "{name} gains as buyers return; shares up {move} in five sessions",
        "{ticker} jumps on growth optimism",
    ),
    "negative": (
        "{name} shares slide as demand concerns weigh",
        "{ticker} stock falls {move} this week amid weak guidance fears",
        "Analysts downgrade {name} as losses mount",
        "{name} slumps; sellers in control after {move} drop",
        "{ticker} drops on margin pressure worries",
    ),
    "neutral": (
        "{name} to present at industry conference next month",
        "{ticker} trades sideways as investors await earnings",
        "{name} announces executive appointment",
        "What to watch for {ticker} ahead of the next quarterly report",
    ),
}
_MACRO_TEMPLATES = {
    "positive": (
        "Stocks rally as inflation cools and rate-cut hopes rise",
        "Markets climb on strong jobs data",
        "Equities gain as earnings season beats expectations",
        "Broad market jumps; investor optimism returns",
        "Indexes rise to record as consumer spending stays strong",
    ),
    "negative": (
        "Stocks slide as inflation fears return",
        "Markets fall on weak manufacturing data",
        "Equities drop as recession worries mount",
        "Broad selloff deepens amid rate-hike concerns",
        "Indexes slump as bond yields surge on sticky inflation",
    ),
    "neutral": (
        "Central bank holds rates steady, as expected",
        "Markets mixed ahead of key economic data",
        "Treasury yields little changed in quiet session",
        "Investors weigh central bank minutes and housing data",
    ),
}
_PUBLISHERS = ("Synthetic Wire", "Demo Markets Daily", "Simulated Street Journal")

_POST_TEMPLATES = {
    "bullish": (
        "${ticker} looking strong, adding more here",
        "${ticker} breaking out, this run has legs",
        "Long ${ticker}. Trend is your friend",
        "${ticker} dip got bought fast, bulls in charge",
    ),
    "bearish": (
        "${ticker} looks heavy, trimming my position",
        "${ticker} losing support, careful here",
        "Short ${ticker}, momentum is fading",
        "${ticker} can't hold a bounce, staying away",
    ),
    None: (
        "Anyone watching ${ticker} today?",
        "${ticker} volume is interesting this afternoon",
        "What's the catalyst for ${ticker} next?",
    ),
}
_GRADES = ("Sell", "Underperform", "Hold", "Outperform", "Buy")
_FIRMS = ("Synthetic Research", "Demo Capital Markets", "Simulated Securities", "Placeholder Partners")


def _tone(move: float, *parts: object, threshold: float = 0.03) -> str:
    """Tone of a headline: follows the move, with some noise near zero."""
    if move > threshold:
        return "positive"
    if move < -threshold:
        return "negative"
    noise = _unit(*parts)
    return "positive" if noise < 0.2 else "negative" if noise > 0.8 else "neutral"


def _after_close(day: pd.Timestamp, *parts: object, span_minutes: int = 240) -> datetime:
    """A timestamp after the 16:00 close, so text never predates its price move."""
    minutes = 5 + int(_unit(*parts) * span_minutes)
    return datetime.combine(day.date(), time(16, 0)) + timedelta(minutes=minutes)


def _headlines(key: str, start: date, end: date, templates: dict, fill: dict) -> list[NewsItem]:
    closes = _close_series(key)
    items = []
    for day in _sessions(start, end):
        count_draw = _unit(key, "news-count", day.date())
        count = 0 if count_draw < 0.45 else 1 if count_draw < 0.85 else 2
        move = _trailing_return(closes, day, 5)
        for j in range(count):
            tone = _tone(move, key, "news-tone", day.date(), j)
            title = _pick(templates[tone], key, "news-title", day.date(), j).format(move=f"{abs(move):.1%}", **fill)
            items.append(
                NewsItem(
                    published=_after_close(day, key, "news-time", day.date(), j),
                    title=title,
                    publisher=_pick(_PUBLISHERS, key, "publisher", day.date(), j),
                    summary=f"Synthetic headline generated from the simulated price path "
                            f"({move:+.1%} over 5 sessions).",
                    url=None,
                )
            )
    return sorted(items, key=lambda item: item.published, reverse=True)


# --------------------------------------------------------------------------
# The vendor
# --------------------------------------------------------------------------


class SyntheticVendor:
    """Deterministic fake market data; see the module docstring."""

    name = SOURCE
    label = "synthetic demo data"

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        symbol = _normalise(ticker)
        frame = _path(symbol).loc[pd.Timestamp(start) : pd.Timestamp(_clip_end(end))].copy()
        frame.attrs["source"] = SOURCE
        return frame

    def profile(self, ticker: str, as_of: date) -> dict:
        symbol = _normalise(ticker)
        traits = _traits(symbol)
        closes = _close_series(symbol).loc[: pd.Timestamp(_clip_end(as_of))]
        if closes.empty:
            raise VendorError(f"no synthetic history for {symbol} before {SERIES_START}")
        price = float(closes.iloc[-1])
        market_cap = price * traits.shares
        filed = _filed_quarters(symbol, as_of)
        ttm = filed.iloc[-4:] if len(filed) >= 4 else None

        pe = forward_pe = pb = margin = growth = None
        if ttm is not None:
            ttm_income = float(ttm["Net Income"].sum())
            ttm_revenue = float(ttm["Total Revenue"].sum())
            margin = ttm_income / ttm_revenue
            if ttm_income > 0:
                pe = market_cap / ttm_income
            equity = float(ttm["Stockholders Equity"].iloc[-1])
            pb = market_cap / equity if equity > 0 else None
        if len(filed) >= 5:
            growth = float(filed["Total Revenue"].iloc[-1] / filed["Total Revenue"].iloc[-5] - 1)
        if pe is not None and growth is not None and growth > -0.5:
            # Consensus-style guess: next year's earnings grow like revenue.
            forward_pe = pe / (1 + growth)

        return {
            "name": traits.name,
            "sector": traits.sector,
            "industry": traits.industry,
            "currency": "USD",
            "price": price,
            "market_cap": market_cap,
            "shares_outstanding": traits.shares,
            "pe": pe,
            "forward_pe": forward_pe,
            "pb": pb,
            "dividend_yield": traits.dividend_yield,
            "beta": traits.beta,
            "profit_margin": margin,
            "debt_to_equity": traits.debt_to_equity,
            "revenue_growth": growth,
            "summary": f"{traits.name} is a fictional {traits.industry.lower()} company generated for demos.",
            "source": SOURCE,
        }

    def statements(self, ticker: str, as_of: date, kind: StatementKind) -> pd.DataFrame:
        symbol = _normalise(ticker)
        if kind not in _ROWS_BY_KIND:
            raise VendorError(f"unknown statement kind {kind!r}")
        filed = _filed_quarters(symbol, as_of).iloc[-STATEMENT_QUARTERS:].iloc[::-1]
        frame = filed[list(_ROWS_BY_KIND[kind])].T.astype(float)
        frame.columns.name = "period"
        frame.attrs[FILED_ATTR] = dict(zip(filed.index, filed["filed"]))
        frame.attrs["source"] = SOURCE
        return frame

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        symbol = _normalise(ticker)
        fill = {"ticker": symbol, "name": _traits(symbol).name}
        return _headlines(symbol, start, end, _NEWS_TEMPLATES, fill)

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        return _headlines(MARKET_KEY, start, end, _MACRO_TEMPLATES, {})

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        symbol = _normalise(ticker)
        closes = _close_series(symbol)
        posts = []
        for day in _sessions(start, end):
            move = _trailing_return(closes, day, 5)
            # Crowd mood leans with the recent move but is never unanimous.
            p_bull = 0.5 + min(max(move * 5, -0.35), 0.35)
            for j in range(2 + int(_unit(symbol, "post-count", day.date()) * 7)):
                parts = (symbol, day.date(), j)
                sentiment: Sentiment | None
                if _unit("post-labelled", *parts) < 0.2:
                    sentiment = None
                else:
                    sentiment = "bullish" if _unit("post-mood", *parts) < p_bull else "bearish"
                posts.append(
                    Post(
                        created=_after_close(day, "post-time", *parts, span_minutes=420),
                        text=_pick(_POST_TEMPLATES[sentiment], "post-text", *parts).format(ticker=symbol),
                        sentiment=sentiment,
                        source=SOURCE,
                    )
                )
        return sorted(posts, key=lambda post: post.created, reverse=True)

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        symbol = _normalise(ticker)
        closes = _close_series(symbol).loc[: pd.Timestamp(_clip_end(as_of))]
        # One grade change per month, on the first session of the month.
        firsts = closes.groupby(closes.index.to_period("M")).head(1).index[-12:]
        grades = []
        for day in firsts:
            firm = _pick(_FIRMS, symbol, "firm", day.date())
            to_grade = self._grade(symbol, closes, day)
            prior = closes.index[closes.index < day - pd.DateOffset(months=1)]
            from_grade = self._grade(symbol, closes, prior[-1]) if len(prior) else None
            action = "main" if from_grade in (None, to_grade) else (
                "up" if _GRADES.index(to_grade) > _GRADES.index(from_grade) else "down"
            )
            grades.append(
                {
                    "date": day.date(),
                    "firm": firm,
                    "to_grade": to_grade,
                    "from_grade": from_grade,
                    "action": action,
                    "source": SOURCE,
                }
            )
        return grades[::-1]

    @staticmethod
    def _grade(symbol: str, closes: pd.Series, day: pd.Timestamp) -> str:
        """Grade from the 3-month trend plus a little analyst disagreement."""
        score = _trailing_return(closes, day, 63) * 4 + (_unit(symbol, "grade", day.date()) - 0.5)
        index = round(min(max(score, -1.0), 1.0) * 2) + 2
        return _GRADES[index]
