"""The market analyst's tools: daily price history and technical indicators.

A currency pair trades over the counter: no volume (Yahoo sends 0), so its figures leave out what is read from
volume (the 20-day average volume, the volume-weighted average VWMA 20, the volume column) rather than show
zeros, and its prices keep four decimals (EUR/USD 1.0842)."""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import cast

import pandas as pd
from langchain_core.tools import BaseTool

from ..core.assets import AssetClass, classify
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


def indicator_rows(vendor: Vendor, ticker: str, as_of: date) -> pd.DataFrame:
    """The price rows the Market Analyst's indicators are computed from (sync: call it off the loop). The
    decision's chart draws its lines from these very rows, so its last bar holds the figures the analyst
    cited (an EMA or RSI over a shorter history would differ in its last digits), and the table computed
    for the analyst is the one the chart finds (graph/data/indicators.py remembers it)."""
    return cut_prices(vendor.ohlcv(ticker, as_of - timedelta(days=INDICATOR_HISTORY_DAYS), as_of), as_of)

# Indicator labels that go into the artifact (Boll Middle is shown in the
# text only; it is the 20-day SMA and the contract leaves it out).
INDICATOR_FIGURES = (
    "SMA 50", "SMA 200", "EMA 10", "MACD", "MACD Signal", "MACD Hist",
    "RSI 14", "Boll Upper", "Boll Lower", "ATR 14", "VWMA 20",
)
VOLUME_FIGURES = frozenset({"Avg Volume 20D", "VWMA 20"})  # read from volume: none for a currency pair
NO_VOLUME = "no traded volume (a currency pair trades over the counter): volume-based figures left out"


def has_volume(ticker: str, frame: pd.DataFrame) -> bool:
    """False for a currency pair, or any series whose volume is all zero."""
    return classify(ticker) is not AssetClass.CURRENCY and bool((frame["volume"].fillna(0) > 0).any())


def _r4(value: object) -> float | None:
    number = r2(value)
    return None if number is None else round(float(value), 4)  # type: ignore[arg-type]


def _close_on_or_before(frame: pd.DataFrame, day: date) -> float | None:
    """Close of the last session on or before ``day``; None if history is too short."""
    rows = frame[frame.index <= pd.Timestamp(day)]
    return float(rows["close"].iloc[-1]) if len(rows) else None


def _change_pct(now: float, then: float | None) -> float | None:
    return None if then in (None, 0) else r2((now / then - 1) * 100)


def price_figures(frame: pd.DataFrame, as_of: date, *, volume: bool = True, places: int = 2) -> Figures:
    """Headline price figures from a frame already cut at ``as_of`` (without the volume's when it has none;
    prices to four decimals for a currency pair)."""
    rnd = _r4 if places == 4 else r2
    close = float(frame["close"].iloc[-1])
    year = frame[frame.index > pd.Timestamp(as_of - timedelta(days=365))]
    month_ago = _close_on_or_before(frame, as_of - timedelta(days=30))
    quarter_ago = _close_on_or_before(frame, as_of - timedelta(days=91))
    figures: Figures = {
        "Close": rnd(close),
        "Change 1M %": _change_pct(close, month_ago),
        "Change 3M %": _change_pct(close, quarter_ago),
        "52W High": rnd(year["high"].max()),
        "52W Low": rnd(year["low"].min()),
    }
    if volume:
        figures["Avg Volume 20D"] = whole(frame["volume"].iloc[-20:].mean())
    return figures


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
    places = 4 if classify(ticker) is AssetClass.CURRENCY else 2
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
        volume = has_volume(ticker, frame)
        rnd = _r4 if places == 4 else r2
        rows = [
            [f"{ts:%Y-%m-%d}", rnd(r.open), rnd(r.high), rnd(r.low), rnd(r.close),
             *([whole(r.volume)] if volume else [])]
            for ts, r in shown.iterrows()
        ]
        figures = price_figures(frame, as_of, volume=volume, places=places)
        items = [f"{row[0]} close {row[4]}" + (f" volume {row[5]}" if volume else "") for row in rows]
        text = "\n".join(
            [
                f"{ticker} daily prices, last {lookback} days: {len(shown)} of {len(window)}"
                " sessions shown (last session of each week when sampled)."
                f" Last bar {frame.index[-1]:%Y-%m-%d}." + ("" if volume else f" {NO_VOLUME}."),
                table(["date", "open", "high", "low", "close", *(["volume"] if volume else [])], rows),
                "Summary: " + "; ".join(f"{k} {show(v)}" for k, v in figures.items()),
            ]
        )
        # The window shown is the one the chart of the decision will draw.
        return text, figures, items, {"window_days": lookback}

    async def indicators() -> tuple[str, Figures, list[str]]:
        frame = await prices_since(as_of - timedelta(days=INDICATOR_HISTORY_DAYS))
        values = compute_indicators(frame)
        if not has_volume(ticker, frame):
            values = {label: ind for label, ind in values.items() if label not in VOLUME_FIGURES}
        def rnd(value: object, label: str = "") -> float | None:  # a pair's price levels to 4 decimals, RSI to 2
            return _r4(value) if places == 4 and label != "RSI 14" else r2(value)

        # Each row: the value on the last session, then the sessions before it (the last of `recent` is the
        # value itself: not written twice), and a note column only when some indicator has a note (issue 41).
        noted = any(ind.note for ind in values.values())
        rows = [
            [ind.label, rnd(ind.value, ind.label), ", ".join(show(rnd(v, ind.label)) for _, v in ind.recent[:-1]),
             *([ind.note or ""] if noted else [])]
            for ind in values.values()
        ]
        figures: Figures = {label: rnd(values[label].value, label) for label in INDICATOR_FIGURES if label in values}
        items = [f"{ind.label}: {ind.note}" for ind in values.values() if ind.note]
        before = max(len(next(iter(values.values())).recent) - 1, 0)
        text = "\n".join(
            [
                f"{ticker} technical indicators from {len(frame)} daily bars up to"
                f" {frame.index[-1]:%Y-%m-%d} (before = the {before} sessions before it, oldest first).",
                table(["indicator", "value", "before", *(["note"] if noted else [])], rows),
                f"Close {rnd(frame['close'].iloc[-1])}." + ("" if has_volume(ticker, frame) else f" {NO_VOLUME}."),
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
