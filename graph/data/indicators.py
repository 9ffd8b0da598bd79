"""Technical indicators for the market analyst, computed with stockstats.

The caller passes an OHLCV frame already cut at the trade date; nothing here
looks at dates, so whatever rows it is given are all it can use.

stockstats fills early rows with partial windows (e.g. a "200-day" average of
60 rows). Those numbers are misleading, so each indicator declares how many
rows it needs and anything computed from fewer rows is reported as None with
a "not enough history" note instead.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import pandas as pd
from stockstats import StockDataFrame

from graph.data.vendor import finite

RECENT_ROWS = 5


@dataclass(frozen=True)
class IndicatorSpec:
    label: str
    column: str  # stockstats column name
    min_rows: int  # rows needed before the value means what its name says


# MACD is 12/26 EMAs with a 9-row signal; RSI and ATR need one prior close.
SPECS: tuple[IndicatorSpec, ...] = (
    IndicatorSpec("SMA 50", "close_50_sma", 50),
    IndicatorSpec("SMA 200", "close_200_sma", 200),
    IndicatorSpec("EMA 10", "close_10_ema", 10),
    IndicatorSpec("MACD", "macd", 26),
    IndicatorSpec("MACD Signal", "macds", 34),
    IndicatorSpec("MACD Hist", "macdh", 34),
    IndicatorSpec("RSI 14", "rsi_14", 15),
    IndicatorSpec("Boll Upper", "boll_ub", 20),
    IndicatorSpec("Boll Middle", "boll", 20),
    IndicatorSpec("Boll Lower", "boll_lb", 20),
    IndicatorSpec("ATR 14", "atr_14", 15),
    IndicatorSpec("VWMA 20", "vwma_20", 20),
)
LABELS: tuple[str, ...] = tuple(spec.label for spec in SPECS)


@dataclass(frozen=True)
class Indicator:
    label: str
    value: float | None  # on the last row
    recent: tuple[tuple[str, float | None], ...]  # (YYYY-MM-DD, value), oldest first
    note: str | None = None  # e.g. "not enough history (120 rows, need 200)"


def _prepare(ohlcv: pd.DataFrame) -> pd.DataFrame:
    """A private, date-sorted float copy; stockstats adds columns in place."""
    frame = ohlcv[["open", "high", "low", "close", "volume"]].astype(float).copy()
    frame.index = pd.DatetimeIndex(pd.to_datetime(frame.index)).tz_localize(None)
    frame.index.name = "date"
    return frame.sort_index()


# Indicator tables already computed, by the exact rows they came from. Many users ask about the same
# tickers on the same day (the chat's card plots what the Market Analyst cited, a comparison or a watch
# asks again); stockstats over ~500 rows is most of a new analysis's start on a busy server (issue 41).
# Keyed by the rows' content, not by ticker and date, so a revised or longer history is computed anew.
_TABLES: OrderedDict[bytes, pd.DataFrame] = OrderedDict()
_TABLES_MAX = 64
_TABLES_LOCK = threading.Lock()  # the tools run in worker threads


def _rows_key(frame: pd.DataFrame) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    return digest.digest()


def indicator_series(ohlcv: pd.DataFrame) -> pd.DataFrame:
    """Every indicator in ``SPECS`` as a column named by its label, one row per price row;
    rows before an indicator has its full window are NaN. The chat's chart plots these, so
    it shows the very numbers the analysts cite. A copy: the caller may change it."""
    frame = _prepare(ohlcv)
    key = _rows_key(frame)
    with _TABLES_LOCK:
        known = _TABLES.get(key)
        if known is not None:
            _TABLES.move_to_end(key)
            return known.copy()
    table = _computed(frame)
    with _TABLES_LOCK:
        _TABLES[key] = table
        while len(_TABLES) > _TABLES_MAX:
            _TABLES.popitem(last=False)
    return table.copy()


def _computed(frame: pd.DataFrame) -> pd.DataFrame:
    table = pd.DataFrame(index=frame.index)
    if frame.empty:
        return table.assign(**{label: pd.Series(dtype=float) for label in LABELS})
    stock = StockDataFrame.retype(frame.copy())
    for spec in SPECS:
        series = pd.Series(stock[spec.column].to_numpy(dtype=float), index=frame.index)
        series.iloc[: spec.min_rows - 1] = math.nan  # row i has i + 1 rows of history behind it
        table[spec.label] = series
    return table


def compute_indicators(ohlcv: pd.DataFrame) -> dict[str, Indicator]:
    """All indicators in ``SPECS`` keyed by label, from the rows given: the value on the last
    row and the last few rows."""
    table = indicator_series(ohlcv)
    rows = len(table)
    if rows == 0:
        return {s.label: Indicator(s.label, None, (), "no price rows") for s in SPECS}
    days = [ts.strftime("%Y-%m-%d") for ts in table.index[-RECENT_ROWS:]]
    result = {}
    for spec in SPECS:
        recent = tuple((day, finite(v)) for day, v in zip(days, table[spec.label].iloc[-RECENT_ROWS:]))
        value = recent[-1][1]
        note = None
        if rows < spec.min_rows:
            note = f"not enough history ({rows} rows, need {spec.min_rows})"
        elif value is None:
            note = "not computable from these rows"
        result[spec.label] = Indicator(spec.label, value, recent, note)
    return result
