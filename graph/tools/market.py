"""The market analyst's tools: daily price history and technical indicators."""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import cast

import pandas as pd
from langchain_core.tools import BaseTool

from ..data.indicators import compute_indicators
from ..data.vendor import Vendor
from .args import NoArgs, PriceHistoryArgs, clamp
from .cutoff import cut_prices
from .formatting import r2, show, table, whole
from .guarded import Figures, NoData, call_vendor, guarded_tool

MAX_PRICE_ROWS = 15
# History fetched for indicators: ~500 sessions so SMA 200 and the EMAs behind
# MACD are warmed up well before the trade date.
INDICATOR_HISTORY_DAYS = 730

# Indicator labels that go into the artifact (Boll Middle is shown in the
# text only; it is the 20-day SMA and the contract leaves it out).
INDICATOR_FIGURES = (
    "SMA 50", "SMA 200", "EMA 10", "MACD", "MACD Signal", "MACD Hist",
    "RSI 14", "Boll Upper", "Boll Lower", "ATR 14", "VWMA 20",
)


def _close_on_or_before(frame: pd.DataFrame, day: date) -> float | None:
    """Close of the last session on or before ``day``; None if history is too short."""
    rows = frame[frame.index <= pd.Timestamp(day)]
    return float(rows["close"].iloc[-1]) if len(rows) else None


def _change_pct(now: float, then: float | None) -> float | None:
    return None if then in (None, 0) else r2((now / then - 1) * 100)


def price_figures(frame: pd.DataFrame, as_of: date) -> Figures:
    """Headline price figures from a frame already cut at ``as_of``."""
    close = float(frame["close"].iloc[-1])
    year = frame[frame.index > pd.Timestamp(as_of - timedelta(days=365))]
    month_ago = _close_on_or_before(frame, as_of - timedelta(days=30))
    quarter_ago = _close_on_or_before(frame, as_of - timedelta(days=91))
    return {
        "Close": r2(close),
        "Change 1M %": _change_pct(close, month_ago),
        "Change 3M %": _change_pct(close, quarter_ago),
        "52W High": r2(year["high"].max()),
        "52W Low": r2(year["low"].min()),
        "Avg Volume 20D": whole(frame["volume"].iloc[-20:].mean()),
    }


def sample_rows(frame: pd.DataFrame, limit: int = MAX_PRICE_ROWS) -> pd.DataFrame:
    """At most ``limit`` rows: weekly closes, thinned further if needed.

    The latest session is always kept, since it is the one that matters most.
    """
    if len(frame) > limit:
        frame = frame.groupby(cast(pd.DatetimeIndex, frame.index).to_period("W-FRI")).tail(1)
    if len(frame) > limit:
        step = math.ceil(len(frame) / limit)
        frame = frame.iloc[::-1].iloc[::step].iloc[::-1]
    return frame


def market_tools(vendor: Vendor, ticker: str, as_of: date) -> list[BaseTool]:
    async def prices_since(start: date) -> pd.DataFrame:
        frame = cut_prices(await call_vendor(vendor.ohlcv, ticker, start, as_of), as_of)
        if frame.empty:
            raise NoData(f"no price history for {ticker} on or before {as_of}")
        return frame

    async def price_history(lookback_days: int = 90) -> tuple[str, Figures, list[str], dict[str, int]]:
        lookback = clamp(lookback_days, 5, 730)
        # Always fetch a year+ so 3M change and the 52-week range are complete.
        frame = await prices_since(as_of - timedelta(days=max(lookback, 400)))
        window = frame[frame.index > pd.Timestamp(as_of - timedelta(days=lookback))]
        shown = sample_rows(window)
        rows = [
            [f"{ts:%Y-%m-%d}", r2(r.open), r2(r.high), r2(r.low), r2(r.close), whole(r.volume)]
            for ts, r in shown.iterrows()
        ]
        figures = price_figures(frame, as_of)
        items = [f"{row[0]} close {row[4]} volume {row[5]}" for row in rows]
        text = "\n".join(
            [
                f"{ticker} daily prices, last {lookback} days: {len(shown)} of {len(window)}"
                " sessions shown (last session of each week when sampled)."
                f" Last bar {frame.index[-1]:%Y-%m-%d}.",
                table(["date", "open", "high", "low", "close", "volume"], rows),
                "Summary: " + "; ".join(f"{k} {show(v)}" for k, v in figures.items()),
            ]
        )
        # The window shown is the one the chart of the decision will draw.
        return text, figures, items, {"window_days": lookback}

    async def indicators() -> tuple[str, Figures, list[str]]:
        frame = await prices_since(as_of - timedelta(days=INDICATOR_HISTORY_DAYS))
        values = compute_indicators(frame)
        rows = [
            [ind.label, r2(ind.value), ", ".join(show(r2(v)) for _, v in ind.recent), ind.note or ""]
            for ind in values.values()
        ]
        figures: Figures = {label: r2(values[label].value) for label in INDICATOR_FIGURES}
        items = [f"{ind.label}: {ind.note}" for ind in values.values() if ind.note]
        recent = len(next(iter(values.values())).recent)
        text = "\n".join(
            [
                f"{ticker} technical indicators from {len(frame)} daily bars up to"
                f" {frame.index[-1]:%Y-%m-%d} (recent = last {recent} sessions, oldest first).",
                table(["indicator", "value", "recent", "note"], rows),
                f"Close {r2(frame['close'].iloc[-1])}.",
            ]
        )
        return text, figures, items

    return [
        guarded_tool(
            "get_price_history",
            f"Daily OHLCV prices for {ticker} up to {as_of} (weekly-sampled table), plus "
            "close, 1M/3M % change, 52-week high/low and 20-day average volume.",
            PriceHistoryArgs, vendor, as_of, price_history,
        ),
        guarded_tool(
            "get_indicators",
            f"Technical indicators for {ticker} as of {as_of}: SMA 50/200, EMA 10, MACD, "
            "RSI 14, Bollinger bands (20), ATR 14, VWMA 20, each with its last 5 values.",
            NoArgs, vendor, as_of, indicators,
        ),
    ]
